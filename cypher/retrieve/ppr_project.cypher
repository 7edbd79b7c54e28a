// Make one space's projection unless it exists, and record its use. The MERGE on the unique
// Projection name locks the bookkeeping node, so clients racing to make the same projection
// queue behind the first and then find it made. Returns whether this call made it.
// Read with one thread: GDS then sizes its buffers for one reader, and a small space's
// projection takes ~9 MiB of heap instead of ~36 (with the default four readers, twenty-odd
// projections kept within the grace period filled a 1 GB heap and stopped Neo4j).
// Params: $space, $graph (the projection's name).
MERGE (p:Projection {name: $graph})
SET p.last_used = timestamp()
WITH gds.graph.exists($graph) AS present
OPTIONAL CALL (present) {
  WITH present WHERE NOT present
  CALL () {
    MATCH (e:EDU {space: $space})
    OPTIONAL MATCH (e)-[:HAS_ARGUMENT]->(a:Argument)
    RETURN e AS source, a AS target, 1.0 AS weight
    UNION ALL
    MATCH (a:Argument {space: $space})-[r:SYNONYM]->(b:Argument)
    RETURN a AS source, b AS target, r.score AS weight
  }
  WITH gds.graph.project($graph, source, target, {relationshipProperties: {weight: weight}},
                         {undirectedRelationshipTypes: ['*'], readConcurrency: 1}) AS g
  RETURN g.nodeCount AS nodes
}
RETURN NOT present AS made, nodes;
