// Which of the given MMS retrieval units already carry an embedding, and of which text (looked up by
// id, so the cost follows the items asked about, not the conversation).
// Params: $space, $ids.
UNWIND $ids AS id
MATCH (r:RetrievalUnit {id: id})
WHERE r.space = $space AND r.embedding IS NOT NULL
RETURN r.id AS id, r.embedded_hash AS embedded_hash;
