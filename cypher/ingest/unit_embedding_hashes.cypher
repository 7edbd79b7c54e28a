// Which MMS retrieval units of a conversation already carry an embedding, and of which text.
// Params: $space, $conversation_id.
MATCH (r:RetrievalUnit {space: $space, conversation_id: $conversation_id})
WHERE r.embedding IS NOT NULL
RETURN r.id AS id, r.embedded_hash AS embedded_hash;
