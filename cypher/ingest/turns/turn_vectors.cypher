// The stored embeddings of a conversation's turns, by their input ids (CAST views average
// them instead of embedding their windows again). Params: $space, $conversation_id.
MATCH (t:Turn {space: $space, conversation_id: $conversation_id})
WHERE t.embedding IS NOT NULL
RETURN t.source_id AS source_id, t.embedding AS embedding;
