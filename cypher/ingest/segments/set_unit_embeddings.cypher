// Store embeddings (float32) on MMS retrieval units of one space, with the hash of what they
// embed. Params: $space, $rows (list of {id, embedding, embedded_hash}).
UNWIND $rows AS row
MATCH (r:RetrievalUnit {id: row.id, space: $space})
CALL db.create.setNodeVectorProperty(r, 'embedding', row.embedding)
SET r.embedded_hash = row.embedded_hash
RETURN count(r) AS embedded;
