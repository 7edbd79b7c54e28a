// Strategies `mms` and `mms-turns`: the MMS retrieval units of one space nearest to the
// question (dense), optionally fused by reciprocal rank with BM25 over their text, each with
// its context unit and its turns in spoken order. Params: $space, $embedding, $query (Lucene
// terms; '' skips BM25), $bm25 (whether to use BM25 at all), $k (units per list and
// returned), $exact (scan the space's own units instead of the index), $candidates
// (vector-index neighbours fetched before the space filter), $rrf_k.
CALL () {
  WITH $query AS terms WHERE $bm25 AND terms <> ''
  CALL db.index.fulltext.queryNodes('unit_text', terms) YIELD node, score
  WHERE node.space = $space
  WITH node ORDER BY score DESC LIMIT $k
  WITH collect(node) AS ranked
  UNWIND range(0, size(ranked) - 1) AS rank
  RETURN ranked[rank] AS unit, 1.0 / ($rrf_k + rank + 1) AS part
  UNION ALL
  CALL () {  // exact: a scan of the space; else the index, filtered to the space
    WITH 1 AS one WHERE $exact
    MATCH (node:RetrievalUnit {space: $space}) WHERE node.embedding IS NOT NULL
    RETURN node, vector.similarity.cosine(node.embedding, $embedding) AS score
    UNION ALL
    WITH 1 AS one WHERE NOT $exact
    CALL db.index.vector.queryNodes('unit_embedding', $candidates, $embedding)
      YIELD node, score
    WHERE node.space = $space
    RETURN node, score
  }
  WITH node ORDER BY score DESC LIMIT $k
  WITH collect(node) AS ranked
  UNWIND range(0, size(ranked) - 1) AS rank
  RETURN ranked[rank] AS unit, 1.0 / ($rrf_k + rank + 1) AS part
}
WITH unit, sum(part) AS score
ORDER BY score DESC, unit.id
LIMIT $k
MATCH (s:Session)-[:HAS_UNIT]->(unit)-[:SHOWS]->(c:ContextUnit)
CALL (unit) {
  MATCH (unit)-[:FROM_TURN]->(t:Turn)
  WITH t ORDER BY t.seq
  RETURN collect({id: t.id, speaker: t.speaker, text: t.text, source_id: t.source_id,
                  image_caption: t.image_caption}) AS turns
}
RETURN unit.id AS id, c.id AS context_id, c.text AS context_text, turns,
       s.id AS session_id, s.started_at AS started_at, s.date_text AS date_text, score
ORDER BY score DESC, id;
