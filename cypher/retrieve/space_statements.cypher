// Strategy `graphmem`: the event statements (EDUs) of one space that can stand in for their
// turn when packing, with the turn each comes from and how it reads; the client keeps them
// beside the space's vectors and scores them for each question (graphmem/retrieve/fused/statements.py).
// The same statements as turn_statements.cypher offers: of one turn alone, not chunks.
// Params: $space.
MATCH (:Session)-[:HAS_EDU]->(e:EDU {space: $space, kind: 'edu'})-[:FROM_TURN]->(t:Turn)
WHERE e.embedding IS NOT NULL AND COUNT { (e)-[:FROM_TURN]->(:Turn) } = 1
RETURN e.id AS id, t.id AS turn_id, e.rendered AS text
ORDER BY id;
