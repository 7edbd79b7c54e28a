// Set vectors directly (float32) with their hash, removing any staged pair: for what changed
// between staging and the swap. Params: $space, $rows (list of {key, embedding, hash}).
UNWIND $rows AS row
MATCH (n) WHERE elementId(n) = row.key AND n.space = $space
CALL db.create.setNodeVectorProperty(n, 'embedding', row.embedding)
SET n.embedded_hash = row.hash
REMOVE n.embedding_next, n.embedded_hash_next
RETURN count(n) AS embedded;
