// Strategy `turns-vector`: nearest turns of one space by cosine similarity (vector index).
// Params: $space, $embedding, $k, $candidates (neighbours fetched before the space filter).
CALL db.index.vector.queryNodes('turn_embedding', $candidates, $embedding) YIELD node, score
WHERE node.space = $space
WITH node AS turn, score ORDER BY score DESC LIMIT $k
MATCH (s:Session)-[:HAS_TURN]->(turn)
RETURN turn.id AS id, turn.text AS text, turn.speaker AS speaker,
       turn.image_caption AS image_caption, turn.source_id AS source_id,
       s.id AS session_id, s.started_at AS started_at, s.date_text AS date_text, score
ORDER BY score DESC, turn.seq ASC;
