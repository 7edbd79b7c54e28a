// Stage new vectors beside the ones searches use: `embedding_next` (float32) and its
// `embedded_hash_next`. Nothing searches them until `swap_vectors` moves them in, and a
// vector index does not hold them. Params: $space, $rows (list of {key, embedding, hash}).
UNWIND $rows AS row
MATCH (n) WHERE elementId(n) = row.key AND n.space = $space
CALL db.create.setNodeVectorProperty(n, 'embedding_next', row.embedding)
SET n.embedded_hash_next = row.hash
RETURN count(n) AS staged;
