// Store embeddings (float32) of episodic units' representations, with the hash of what they
// embed. Params: $space, $rows (list of {id, embedding, embedded_hash}).
// A vector `graphmem reembed` staged for the node's earlier text goes with it.
UNWIND $rows AS row
MATCH (e:Episode {id: row.id, space: $space})
CALL db.create.setNodeVectorProperty(e, 'embedding', row.embedding)
SET e.embedded_hash = row.embedded_hash
REMOVE e.embedding_next, e.embedded_hash_next
RETURN count(e) AS embedded;
