// graphmem's fused strategy: every turn of one space, in spoken order, with what its ranking
// features and its rendering need (the MemDecider's salience when the episodes layer set it).
// Read once per space and kept by the client until the space's revision changes.
// Params: $space.
MATCH (s:Session {space: $space})-[:HAS_TURN]->(t:Turn)
RETURN t.id AS id, t.speaker AS speaker, t.text AS text, t.image_caption AS image_caption,
       t.source_id AS source_id, t.order AS position, t.salience AS salience,
       s.id AS session_id, s.index AS session_index, s.conversation_id AS conversation_id,
       s.started_at AS started_at, s.date_text AS date_text
ORDER BY conversation_id, session_index, position;
