// Which turns of a conversation already carry an embedding, and of which text.
// Params: $space, $conversation_id.
MATCH (t:Turn {space: $space, conversation_id: $conversation_id})
WHERE t.embedding IS NOT NULL
RETURN t.id AS id, t.embedded_hash AS embedded_hash;
