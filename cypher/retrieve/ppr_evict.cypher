// Drop one projection unless a client used it within the last $grace_ms milliseconds; returns
// the projection's name when it was dropped. A projection whose bookkeeping node is not
// visible (its maker has not committed yet) counts from its creation, so a new one is never
// taken for an old one. Params: $graph, $grace_ms.
OPTIONAL MATCH (p:Projection {name: $graph})
OPTIONAL CALL () {
  CALL gds.graph.list($graph) YIELD creationTime
  RETURN creationTime.epochMillis AS created
}
WITH p, coalesce(p.last_used, created, 0) AS last_used
WHERE last_used < timestamp() - $grace_ms
DETACH DELETE p
WITH count(*) AS due WHERE due > 0
CALL gds.graph.drop($graph, false) YIELD graphName
RETURN graphName AS graph;
