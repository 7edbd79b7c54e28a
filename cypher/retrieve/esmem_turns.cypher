// ES-Mem's coarse-to-fine retrieval carried down to single turns (graphmem's variant): the
// anchor scan, window expansion and summary rerank of retrieve/esmem score the events of the
// activated intervals; each of their turns then scores
// beta * (its own similarity to the question) + (1 - beta) * (its event's score).
// Scores are Neo4j's normalised cosine, (1 + cos) / 2.
// Params: $space, $embedding, $k, $exact (scan the space's own nodes exactly instead of the
// index), $candidates, $w, $alpha, $beta, $limit.
CALL () {  // exact: a scan of the space; else the index, filtered to the space
  WITH 1 AS one WHERE $exact
  MATCH (node:Boundary {space: $space}) WHERE node.embedding IS NOT NULL
  RETURN node, vector.similarity.cosine(node.embedding, $embedding) AS score
  UNION ALL
  WITH 1 AS one WHERE NOT $exact
  CALL db.index.vector.queryNodes('boundary_embedding', $candidates, $embedding) YIELD node, score
  WHERE node.space = $space
  RETURN node, score
}
WITH node AS boundary, score ORDER BY score DESC LIMIT $k
MATCH (boundary)-[:OPENS]->(anchor:Event)
MATCH (event:Event {conversation_id: anchor.conversation_id})
WHERE event.seq >= anchor.seq - $w AND event.seq <= anchor.seq + $w AND event.space = $space
WITH event, max(score) AS s_ctx
WITH event, $alpha * vector.similarity.cosine(event.embedding, $embedding)
            + (1 - $alpha) * s_ctx AS s_event
MATCH (s:Session)-[:HAS_EVENT]->(event)-[:FROM_TURN]->(t:Turn)
WITH t, s, s_event, vector.similarity.cosine(t.embedding, $embedding) AS s_turn
WITH t, s, s_event, s_turn, $beta * s_turn + (1 - $beta) * s_event AS score
ORDER BY score DESC, t.id LIMIT $limit
RETURN t.id AS id, t.speaker AS speaker, t.text AS text, t.source_id AS source_id,
       t.image_caption AS image_caption, s.id AS session_id, s.started_at AS started_at,
       s.date_text AS date_text, s_event, s_turn, score
ORDER BY score DESC, id;
