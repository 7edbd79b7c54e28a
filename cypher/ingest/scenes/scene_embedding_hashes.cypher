// Which scenes and profiles of a conversation already carry an embedding, and of which text.
// Params: $space, $conversation_id.
MATCH (n:Scene {space: $space, conversation_id: $conversation_id})
WHERE n.embedding IS NOT NULL
RETURN n.id AS id, n.embedded_hash AS embedded_hash
UNION ALL
MATCH (n:Profile {space: $space, conversation_id: $conversation_id})
WHERE n.embedding IS NOT NULL
RETURN n.id AS id, n.embedded_hash AS embedded_hash;
