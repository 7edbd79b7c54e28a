// Strategy `turns-bm25`: Lucene BM25 over the raw turns of one space.
// Params: $space, $query (Lucene terms, not empty), $k.
CALL db.index.fulltext.queryNodes('turn_text', $query) YIELD node, score
WHERE node.space = $space
WITH node AS turn, score ORDER BY score DESC LIMIT $k
MATCH (s:Session)-[:HAS_TURN]->(turn)
RETURN turn.id AS id, turn.text AS text, turn.speaker AS speaker,
       turn.image_caption AS image_caption, turn.source_id AS source_id,
       s.id AS session_id, s.started_at AS started_at, s.date_text AS date_text, score
ORDER BY score DESC, turn.seq ASC;
