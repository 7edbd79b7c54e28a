// Drop one projection unless a client used it within the last $grace_ms milliseconds; returns
// the projection's name when it was dropped. Params: $graph, $grace_ms.
OPTIONAL MATCH (p:Projection {name: $graph})
WITH p WHERE coalesce(p.last_used, 0) < timestamp() - $grace_ms
DETACH DELETE p
WITH count(*) AS due WHERE due > 0
CALL gds.graph.drop($graph, false) YIELD graphName
RETURN graphName AS graph;
