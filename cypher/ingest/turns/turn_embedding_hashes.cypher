// Which of the given turns already carry an embedding, and of which text (looked up by
// id, so the cost follows the items asked about, not the conversation).
// Params: $space, $ids.
UNWIND $ids AS id
MATCH (t:Turn {id: id})
WHERE t.space = $space AND t.embedding IS NOT NULL
RETURN t.id AS id, t.embedded_hash AS embedded_hash;
