// The stored EDUs of a conversation with their arguments, in session and spoken order: what
// the EDU layer hands to later layers when it is not part of the run.
// Params: $space, $conversation_id.
MATCH (s:Session {space: $space, conversation_id: $conversation_id})-[:HAS_EDU]->(e:EDU)
OPTIONAL MATCH (e)-[:HAS_ARGUMENT]->(a:Argument)
WITH s, e, collect(a.text) AS arguments
RETURN e.id AS id, s.id AS session_id, e.text AS text, e.speaker AS speaker,
       e.source_ids AS source_ids, arguments
ORDER BY s.started_at, s.index, e.order;
