// Store embeddings (float32) on character profiles of one space, with the hash of what they
// embed. Params: $space, $rows (list of {id, embedding, embedded_hash}).
// A vector `graphmem reembed` staged for the node's earlier text goes with it.
UNWIND $rows AS row
MATCH (p:Profile {id: row.id, space: $space})
CALL db.create.setNodeVectorProperty(p, 'embedding', row.embedding)
SET p.embedded_hash = row.embedded_hash
REMOVE p.embedding_next, p.embedded_hash_next
RETURN count(p) AS embedded;
