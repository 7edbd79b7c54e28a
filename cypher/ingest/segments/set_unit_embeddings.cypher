// Store embeddings (float32) on MMS retrieval units of one space, with the hash of what they
// embed. Params: $space, $rows (list of {id, embedding, embedded_hash}).
// A vector `graphmem reembed` staged for the node's earlier text goes with it.
UNWIND $rows AS row
MATCH (r:RetrievalUnit {id: row.id, space: $space})
CALL db.create.setNodeVectorProperty(r, 'embedding', row.embedding)
SET r.embedded_hash = row.embedded_hash
REMOVE r.embedding_next, r.embedded_hash_next
RETURN count(r) AS embedded;
