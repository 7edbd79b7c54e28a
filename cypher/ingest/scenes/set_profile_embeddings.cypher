// Store embeddings (float32) on character profiles of one space, with the hash of what they
// embed. Params: $space, $rows (list of {id, embedding, embedded_hash}).
UNWIND $rows AS row
MATCH (p:Profile {id: row.id, space: $space})
CALL db.create.setNodeVectorProperty(p, 'embedding', row.embedding)
SET p.embedded_hash = row.embedded_hash
RETURN count(p) AS embedded;
