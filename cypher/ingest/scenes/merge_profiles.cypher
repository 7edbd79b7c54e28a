// Character profiles of one conversation: the character's scenes in time order with their
// role in each, and the profile text; linked to the turns the text quotes (links to turns
// it no longer quotes are dropped).
// Params: $space, $profiles (list of {id, character_id, conversation_id, name, text,
// scenes: [{id, order, role}], source_ids, source_turn_ids}).
UNWIND $profiles AS row
MATCH (ch:Character {id: row.character_id, space: $space})
MERGE (p:Profile {id: row.id})
  ON CREATE SET p.space = $space
SET p.conversation_id = row.conversation_id, p.name = row.name, p.text = row.text,
    p.scenes = size(row.scenes), p.source_ids = row.source_ids
MERGE (ch)-[:HAS_PROFILE]->(p)
WITH p, row
CALL (p) {
  OPTIONAL MATCH (p)-[old:FEATURES]->(:Scene)
  DELETE old
}
CALL (p, row) {
  UNWIND row.scenes AS entry
  MATCH (sc:Scene {id: entry.id, space: $space})
  MERGE (p)-[f:FEATURES]->(sc)
  SET f.order = entry.order, f.role = entry.role
}
CALL (p, row) {
  OPTIONAL MATCH (p)-[stale:FROM_TURN]->(t:Turn)
  WHERE NOT t.id IN row.source_turn_ids
  DELETE stale
}
CALL (p, row) {
  UNWIND row.source_turn_ids AS turn_id
  MATCH (t:Turn {id: turn_id, space: $space})
  MERGE (p)-[:FROM_TURN]->(t)
}
RETURN count(p) AS profiles;
