// graphmem's fused strategy: every turn of one space, in spoken order, with what its ranking
// features and its rendering need (the MemDecider's salience when the episodes layer set it).
// Read once per space and kept by the client until the space's revision changes.
// Params: $space.
// One row per session, its turns in spoken order, each
// [id, speaker, text, image_caption, source_id, position, salience]: thousands of small
// records cost the driver far more than a few lists of them.
MATCH (s:Session {space: $space})-[:HAS_TURN]->(t:Turn)
WITH s, t ORDER BY t.order
WITH s, collect([t.id, t.speaker, t.text, t.image_caption, t.source_id, t.order,
                 t.salience]) AS turns
RETURN s.id AS session_id, s.index AS session_index, s.conversation_id AS conversation_id,
       s.started_at AS started_at, s.date_text AS date_text, turns
ORDER BY conversation_id, session_index;
