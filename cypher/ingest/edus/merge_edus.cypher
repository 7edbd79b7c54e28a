// Event statements (EDUs) of one conversation, each linked to its session and to the turns it
// came from. Params: $space, $edus (list of {id, session_id, conversation_id, kind, text,
// rendered, speaker, order, source_turn_ids, source_ids}).
UNWIND $edus AS row
MATCH (s:Session {id: row.session_id, space: $space})
MERGE (e:EDU {id: row.id})
  ON CREATE SET e.space = $space
SET e.conversation_id = row.conversation_id, e.session_id = row.session_id,
    e.kind = row.kind, e.text = row.text, e.rendered = row.rendered, e.speaker = row.speaker,
    e.order = row.order, e.source_ids = row.source_ids
MERGE (s)-[:HAS_EDU]->(e)
WITH e, row
UNWIND row.source_turn_ids AS turn_id
MATCH (t:Turn {id: turn_id, space: $space})
MERGE (e)-[:FROM_TURN]->(t)
RETURN count(DISTINCT e) AS edus;
