// CAST scenes of one conversation: each with its summary, time span, place and participants,
// linked from its conversation, to the turns it spans and from each participant with their
// role there ('main': speaks in it; 'supporting': only mentioned). A scene written again gets
// its roles anew. Params: $space, $scenes (list of {id, conversation_id, order, summary, title,
// started_at, ended_at, place, participants, source_ids, source_turn_ids,
// roles: [{character_id, role}]}).
UNWIND $scenes AS row
MATCH (c:Conversation {id: row.conversation_id, space: $space})
MERGE (sc:Scene {id: row.id})
  ON CREATE SET sc.space = $space
SET sc.conversation_id = row.conversation_id, sc.order = row.order, sc.summary = row.summary,
    sc.title = row.title,
    sc.started_at = row.started_at, sc.ended_at = row.ended_at, sc.place = row.place,
    sc.participants = row.participants, sc.source_ids = row.source_ids
MERGE (c)-[:HAS_SCENE]->(sc)
WITH sc, row
CALL (sc) {
  OPTIONAL MATCH (sc)<-[old:IN_SCENE]-(:Character)
  DELETE old
}
CALL (sc, row) {
  UNWIND row.roles AS cast
  MATCH (ch:Character {id: cast.character_id, space: $space})
  MERGE (ch)-[r:IN_SCENE]->(sc)
  SET r.role = cast.role
}
CALL (sc, row) {
  UNWIND row.source_turn_ids AS turn_id
  MATCH (t:Turn {id: turn_id, space: $space})
  MERGE (sc)-[:FROM_TURN]->(t)
}
RETURN count(sc) AS scenes;
