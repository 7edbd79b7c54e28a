// ES-Mem coarse-to-fine retrieval in one pass.
// 1. Anchor scan: the k boundaries of the space nearest to the question (vector index).
// 2. Window expansion: every event within w steps of an anchored event along the event chain
//    of its conversation; each keeps the best score of an anchor whose window holds it (S_ctx).
// 3. Summary rerank: score = alpha * S_sum + (1 - alpha) * S_ctx, S_sum the similarity of the
//    question and the event summary. The top events come back with their raw turns in order.
// Scores are Neo4j's normalised cosine, (1 + cos) / 2, on both sides of the fusion.
// Params: $space, $embedding, $k, $exact (scan the space's own nodes exactly instead of the
// index), $candidates (neighbours fetched before the space filter),
// $w, $alpha, $limit.
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
WITH event, s_ctx, vector.similarity.cosine(event.embedding, $embedding) AS s_sum
WITH event, s_ctx, s_sum, $alpha * s_sum + (1 - $alpha) * s_ctx AS score
ORDER BY score DESC, event.id LIMIT $limit
MATCH (s:Session)-[:HAS_EVENT]->(event)-[:FROM_TURN]->(t:Turn)
WITH event, s, s_ctx, s_sum, score, t ORDER BY t.order
WITH event, s, s_ctx, s_sum, score,
     collect(t {.id, .speaker, .text, .source_id, .image_caption}) AS turns
RETURN event.id AS id, event.summary AS summary, s.id AS session_id,
       s.started_at AS started_at, s.date_text AS date_text, turns, s_ctx, s_sum, score
ORDER BY score DESC, id;
