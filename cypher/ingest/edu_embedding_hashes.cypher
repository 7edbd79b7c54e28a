// Which EDUs of a conversation already carry an embedding, and of which text.
// Params: $space, $conversation_id.
MATCH (e:EDU {space: $space, conversation_id: $conversation_id})
WHERE e.embedding IS NOT NULL
RETURN e.id AS id, e.embedded_hash AS embedded_hash;
