// Projections in the GDS catalog whose names start with a prefix. Params: $prefix.
CALL gds.graph.list() YIELD graphName
WHERE graphName STARTS WITH $prefix
RETURN graphName AS graph;
