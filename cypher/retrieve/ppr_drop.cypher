// Drop a projection from the GDS catalog and its bookkeeping node, whether in use or not (the
// space it shows is being deleted); no error when it is gone. Params: $graph.
OPTIONAL MATCH (p:Projection {name: $graph})
DETACH DELETE p
WITH count(*) AS done
CALL gds.graph.drop($graph, false) YIELD graphName
RETURN graphName AS graph;
