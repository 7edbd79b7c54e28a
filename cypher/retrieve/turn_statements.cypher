// Strategy `graphmem`: for each candidate turn, its event statement (EDU) nearest the question,
// which packing may show in place of the whole turn when it costs fewer tokens
// (graphmem/retrieve/fused/statements.py). Only statements drawn from that one turn alone are
// offered: a chunk renders its whole turn anyway, and a statement of several turns does not
// stand for one. Score: Neo4j's cosine score, (1 + cos) / 2; ties go to the smaller id.
// Params: $space, $turn_ids, $embedding (the question's vector).
UNWIND $turn_ids AS turn_id
MATCH (t:Turn {id: turn_id, space: $space})<-[:FROM_TURN]-(e:EDU {space: $space, kind: 'edu'})
WHERE e.embedding IS NOT NULL AND EXISTS { (:Session)-[:HAS_EDU]->(e) }
  AND COUNT { (e)-[:FROM_TURN]->(:Turn) } = 1
WITH t, e, vector.similarity.cosine(e.embedding, $embedding) AS score
ORDER BY t.id, score DESC, e.id
WITH t, collect({id: e.id, text: e.rendered, score: score})[0] AS best
RETURN t.id AS turn_id, best.id AS id, best.text AS text, best.score AS score;
