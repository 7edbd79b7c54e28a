// Strategy `turns-vector`: nearest turns of one space by cosine similarity (vector index).
// Params: $space, $embedding, $k, $exact (scan the space's own nodes exactly instead of the
// index), $candidates (neighbours fetched before the space filter).
CALL () {  // exact: a scan of the space; else the index, filtered to the space
  WITH 1 AS one WHERE $exact
  MATCH (node:Turn {space: $space}) WHERE node.embedding IS NOT NULL
  RETURN node, vector.similarity.cosine(node.embedding, $embedding) AS score
  UNION ALL
  WITH 1 AS one WHERE NOT $exact
  CALL db.index.vector.queryNodes('turn_embedding', $candidates, $embedding) YIELD node, score
  WHERE node.space = $space
  RETURN node, score
}
WITH node AS turn, score ORDER BY score DESC LIMIT $k
MATCH (s:Session)-[:HAS_TURN]->(turn)
RETURN turn.id AS id, turn.text AS text, turn.speaker AS speaker,
       turn.image_caption AS image_caption, turn.source_id AS source_id,
       s.id AS session_id, s.started_at AS started_at, s.date_text AS date_text, score
ORDER BY score DESC, turn.seq ASC;
