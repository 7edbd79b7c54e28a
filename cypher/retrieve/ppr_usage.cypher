// graphmem's projections in the GDS catalog, least recently used first (a projection with no
// bookkeeping node counts from its creation). Params: $prefix.
CALL gds.graph.list() YIELD graphName, creationTime
WHERE graphName STARTS WITH $prefix
OPTIONAL MATCH (p:Projection {name: graphName})
RETURN graphName AS graph, coalesce(p.last_used, creationTime.epochMillis) AS last_used
ORDER BY last_used, graph;
