// Strategy `turns`: BM25 (fulltext index) and dense (vector index) search over the raw turns
// of one space, fused by reciprocal rank: score = sum over lists of 1 / ($rrf_k + rank).
// Params: $space, $query (Lucene terms; '' skips BM25), $embedding (384 floats),
// $k (hits per list and returned), $exact (scan the space's own nodes exactly instead of the
// index), $candidates (vector-index neighbours fetched before the
// space filter), $rrf_k (60 is customary).
CALL () {
  WITH $query AS terms WHERE terms <> ''
  CALL db.index.fulltext.queryNodes('turn_text', terms) YIELD node, score
  WHERE node.space = $space
  WITH node ORDER BY score DESC LIMIT $k
  WITH collect(node) AS ranked
  UNWIND range(0, size(ranked) - 1) AS rank
  RETURN ranked[rank] AS turn, 1.0 / ($rrf_k + rank + 1) AS part
  UNION ALL
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
  WITH node ORDER BY score DESC LIMIT $k
  WITH collect(node) AS ranked
  UNWIND range(0, size(ranked) - 1) AS rank
  RETURN ranked[rank] AS turn, 1.0 / ($rrf_k + rank + 1) AS part
}
WITH turn, sum(part) AS score
ORDER BY score DESC, turn.seq ASC
LIMIT $k
MATCH (s:Session)-[:HAS_TURN]->(turn)
RETURN turn.id AS id, turn.text AS text, turn.speaker AS speaker,
       turn.image_caption AS image_caption, turn.source_id AS source_id,
       s.id AS session_id, s.started_at AS started_at, s.date_text AS date_text, score
ORDER BY score DESC, turn.seq ASC;
