// Store embeddings (float32) on events (their summary) or boundaries (their description),
// with the hash of what they embed. Params: $space, $rows (list of {id, embedding,
// embedded_hash}).
// A vector `graphmem reembed` staged for the node's earlier text goes with it.
UNWIND $rows AS row
OPTIONAL MATCH (e:Event {id: row.id})
OPTIONAL MATCH (b:Boundary {id: row.id})
WITH row, coalesce(e, b) AS n
WHERE n IS NOT NULL AND n.space = $space
CALL db.create.setNodeVectorProperty(n, 'embedding', row.embedding)
SET n.embedded_hash = row.embedded_hash
REMOVE n.embedding_next, n.embedded_hash_next
RETURN count(n) AS embedded;
