// The questions of a space nearest to a new one, with the turns that asked and answered them.
// Params: $space, $embedding, $k.
MATCH (q:Question {space: $space})-[:FROM_TURN]->(t:Turn)
MATCH (s:Session)-[:HAS_TURN]->(t)
OPTIONAL MATCH (q)-[:ANSWERED_BY]->(a:Turn)
WITH q, t, a, s, vector.similarity.cosine(t.embedding, $embedding) AS score
ORDER BY score DESC, q.id LIMIT $k
RETURN q.id AS id, t.speaker AS asker, q.text AS question, a.speaker AS answerer,
       a.text AS answer, [t.id] + CASE WHEN a IS NULL THEN [] ELSE [a.id] END AS turn_ids,
       s.id AS session_id, s.started_at AS started_at, score
ORDER BY score DESC, id;
