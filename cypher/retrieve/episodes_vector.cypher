// EMA's Caller: the episodic units of one space whose representation (tags, summary, links)
// is nearest the question with its named entities, near-duplicates merged into another left
// out; each with what replaced it (if anything) and its turns in spoken order.
// Params: $space, $embedding, $k, $exact (scan the space's units exactly instead of the
// index), $candidates (neighbours fetched before the space filter).
CALL () {
  WITH 1 AS one WHERE $exact
  MATCH (node:Episode {space: $space}) WHERE node.embedding IS NOT NULL
  RETURN node, vector.similarity.cosine(node.embedding, $embedding) AS score
  UNION ALL
  WITH 1 AS one WHERE NOT $exact
  CALL db.index.vector.queryNodes('episode_embedding', $candidates, $embedding)
    YIELD node, score
  WHERE node.space = $space
  RETURN node, score
}
WITH node AS e, score
WHERE e.merged_into IS NULL
ORDER BY score DESC, e.id LIMIT $k
MATCH (s:Session)-[:HAS_EPISODE]->(e)
OPTIONAL MATCH (e)-[:SUPERSEDED_BY]->(newer:Episode)
RETURN e.id AS id, score, e.content AS content, e.speaker AS speaker,
       e.importance AS importance, e.confidence AS confidence, newer.id AS superseded_by,
       newer.started_at AS superseded_at, s.id AS session_id, s.started_at AS started_at,
       s.date_text AS date_text,
       COLLECT { MATCH (e)-[:FROM_TURN]->(t:Turn) WITH t ORDER BY t.seq
                 RETURN {id: t.id, source_id: t.source_id} } AS turns
ORDER BY score DESC, id;
