// EMem-G: Personalized PageRank with weighted seeds, exactly. GDS 2.13 takes only unweighted
// source nodes, and PageRank is linear in its personalization vector, so one run per seed is
// made and the scores are summed with the seeds' weights. Returns the top EDUs.
// Runs are single-threaded: on these small graphs thread hand-off costs more than it saves.
// Params: $graph, $seeds (list of {element_id, weight}), $damping, $iterations, $tolerance,
// $concurrency, $k.
UNWIND $seeds AS seed
MATCH (n) WHERE elementId(n) = seed.element_id
CALL gds.pageRank.stream($graph, {sourceNodes: [n], dampingFactor: $damping,
                                  maxIterations: $iterations, tolerance: $tolerance,
                                  relationshipWeightProperty: 'weight',
                                  concurrency: $concurrency, logProgress: false})
YIELD nodeId, score
WITH nodeId, sum(score * seed.weight) AS score
WITH gds.util.asNode(nodeId) AS edu, score
WHERE edu:EDU
WITH edu, score ORDER BY score DESC, edu.id LIMIT $k
MATCH (s:Session)-[:HAS_EDU]->(edu)
OPTIONAL MATCH (edu)-[:FROM_TURN]->(t:Turn)
WITH edu, score, s, collect(t.id) AS turn_ids
RETURN edu.id AS id, elementId(edu) AS element_id, edu.kind AS kind, edu.text AS text,
       edu.rendered AS rendered, edu.speaker AS speaker, edu.source_ids AS source_ids,
       turn_ids, s.id AS session_id, s.started_at AS started_at, s.date_text AS date_text,
       score
ORDER BY score DESC, id;
