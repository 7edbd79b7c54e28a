// Project one space's EDUs and arguments (and nothing of any other space) into the GDS
// catalog as an undirected weighted graph: EDU-argument edges weigh 1, synonym edges their
// similarity. Params: $space, $graph (the projection's name).
CALL () {
  MATCH (e:EDU {space: $space})
  OPTIONAL MATCH (e)-[:HAS_ARGUMENT]->(a:Argument)
  RETURN e AS source, a AS target, 1.0 AS weight
  UNION ALL
  MATCH (a:Argument {space: $space})-[r:SYNONYM]->(b:Argument)
  RETURN a AS source, b AS target, r.score AS weight
}
WITH gds.graph.project($graph, source, target, {relationshipProperties: {weight: weight}},
                       {undirectedRelationshipTypes: ['*']}) AS g
RETURN g.graphName AS graph, g.nodeCount AS nodes, g.relationshipCount AS relationships;
