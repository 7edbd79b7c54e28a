// Strategy `graphmem`: every embedded unit of one space with the ids of its turns, read once so
// the client can score them for each question (graphmem/retrieve/fused/space_vectors.py). Units the
// dense searches leave out are left out here too: EDUs and episodic units without a session,
// units without a context unit, episodic units merged into another. With $vectors false the
// embeddings are left out (null): the client then keeps the vectors it holds whose embedded_hash
// is unchanged and reads the others by id (space_vectors_by_id.cypher).
// Params: $space, $kinds (of 'vector', 'units', 'edus', 'scenes', 'episodes'), $vectors.
CALL () {
  WITH 1 AS one WHERE 'vector' IN $kinds
  MATCH (:Session)-[:HAS_TURN]->(t:Turn {space: $space}) WHERE t.embedding IS NOT NULL
  RETURN 'vector' AS kind, t.id AS id, t.embedded_hash AS hash,
         CASE WHEN $vectors THEN t.embedding END AS embedding, [t.id] AS turn_ids
  UNION ALL
  WITH 1 AS one WHERE 'units' IN $kinds
  MATCH (:Session)-[:HAS_UNIT]->(u:RetrievalUnit {space: $space})-[:SHOWS]->(:ContextUnit)
  WHERE u.embedding IS NOT NULL
  RETURN 'units' AS kind, u.id AS id, u.embedded_hash AS hash,
         CASE WHEN $vectors THEN u.embedding END AS embedding,
         COLLECT { MATCH (u)-[:FROM_TURN]->(t:Turn) RETURN t.id ORDER BY t.seq } AS turn_ids
  UNION ALL
  WITH 1 AS one WHERE 'edus' IN $kinds
  MATCH (:Session)-[:HAS_EDU]->(e:EDU {space: $space}) WHERE e.embedding IS NOT NULL
  RETURN 'edus' AS kind, e.id AS id, e.embedded_hash AS hash,
         CASE WHEN $vectors THEN e.embedding END AS embedding,
         COLLECT { MATCH (e)-[:FROM_TURN]->(t:Turn) RETURN t.id } AS turn_ids
  UNION ALL
  WITH 1 AS one WHERE 'scenes' IN $kinds
  MATCH (c:Scene {space: $space}) WHERE c.embedding IS NOT NULL
  RETURN 'scenes' AS kind, c.id AS id, c.embedded_hash AS hash,
         CASE WHEN $vectors THEN c.embedding END AS embedding,
         COLLECT { MATCH (c)-[:FROM_TURN]->(t:Turn) RETURN t.id ORDER BY t.seq } AS turn_ids
  UNION ALL
  WITH 1 AS one WHERE 'episodes' IN $kinds
  MATCH (:Session)-[:HAS_EPISODE]->(e:Episode {space: $space})
  WHERE e.embedding IS NOT NULL AND e.merged_into IS NULL
  RETURN 'episodes' AS kind, e.id AS id, e.embedded_hash AS hash,
         CASE WHEN $vectors THEN e.embedding END AS embedding,
         COLLECT { MATCH (e)-[:FROM_TURN]->(t:Turn) RETURN t.id ORDER BY t.seq } AS turn_ids
}
// one row per kind, its units in the order of their ids, each [id, hash, embedding, turn_ids]:
// thousands of small records cost the driver far more than one list of them
WITH kind, id, hash, embedding, turn_ids ORDER BY kind, id
RETURN kind, collect([id, hash, embedding, turn_ids]) AS units
ORDER BY kind;
