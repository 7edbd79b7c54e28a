// Store embeddings (float32) on CAST scenes of one space, with the hash of what they embed.
// Params: $space, $rows (list of {id, embedding, embedded_hash}).
// A vector `graphmem reembed` staged for the node's earlier text goes with it.
UNWIND $rows AS row
MATCH (sc:Scene {id: row.id, space: $space})
CALL db.create.setNodeVectorProperty(sc, 'embedding', row.embedding)
SET sc.embedded_hash = row.embedded_hash
REMOVE sc.embedding_next, sc.embedded_hash_next
RETURN count(sc) AS embedded;
