// The questions of a space with the vector of the turn that asks each (a question embeds no
// text of its own), so graphmem's client can score them as `asked` does in Neo4j.
// Params: $space, $vectors (false: the embeddings are left null), $ids (null: every question).
MATCH (q:Question {space: $space})-[:FROM_TURN]->(t:Turn)<-[:HAS_TURN]-(:Session)
WHERE t.embedding IS NOT NULL AND ($ids IS NULL OR q.id IN $ids)
OPTIONAL MATCH (q)-[:ANSWERED_BY]->(a:Turn)
RETURN q.id AS id, t.embedded_hash AS hash, CASE WHEN $vectors THEN t.embedding END AS embedding,
       [t.id] + CASE WHEN a IS NULL THEN [] ELSE [a.id] END AS turn_ids
ORDER BY id;
