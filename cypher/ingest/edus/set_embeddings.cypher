// Store embeddings (float32) on EDUs or arguments of one space, with the hash of what they
// embed. Params: $space, $rows (list of {id, embedding, embedded_hash}).
// A vector `graphmem reembed` staged for the node's earlier text goes with it.
UNWIND $rows AS row
MATCH (n {id: row.id, space: $space})
WHERE n:EDU OR n:Argument
CALL db.create.setNodeVectorProperty(n, 'embedding', row.embedding)
SET n.embedded_hash = row.embedded_hash
REMOVE n.embedding_next, n.embedded_hash_next
RETURN count(n) AS embedded;
