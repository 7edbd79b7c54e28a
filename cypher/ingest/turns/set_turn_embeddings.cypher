// Store turn embeddings (float32) with the hash of the text they embed.
// Params: $space, $rows (list of {id, embedding, embedded_hash}).
// A vector `graphmem reembed` staged for the node's earlier text goes with it.
UNWIND $rows AS row
MATCH (t:Turn {id: row.id, space: $space})
CALL db.create.setNodeVectorProperty(t, 'embedding', row.embedding)
SET t.embedded_hash = row.embedded_hash
REMOVE t.embedding_next, t.embedded_hash_next
RETURN count(t) AS embedded;
