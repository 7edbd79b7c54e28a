// Drop a projection from the GDS catalog (no error when it is gone). Params: $graph.
CALL gds.graph.drop($graph, false) YIELD graphName
RETURN graphName AS graph;
