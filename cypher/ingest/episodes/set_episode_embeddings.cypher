// Store embeddings (float32) of episodic units' representations, with the hash of what they
// embed. Params: $space, $rows (list of {id, embedding, embedded_hash}).
UNWIND $rows AS row
MATCH (e:Episode {id: row.id, space: $space})
CALL db.create.setNodeVectorProperty(e, 'embedding', row.embedding)
SET e.embedded_hash = row.embedded_hash
RETURN count(e) AS embedded;
