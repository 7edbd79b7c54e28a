// Which of the given EDUs already carry an embedding, and of which text (looked up by
// id, so the cost follows the items asked about, not the conversation).
// Params: $space, $ids.
UNWIND $ids AS id
MATCH (e:EDU {id: id})
WHERE e.space = $space AND e.embedding IS NOT NULL
RETURN e.id AS id, e.embedded_hash AS embedded_hash;
