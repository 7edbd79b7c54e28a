// Remove bookkeeping nodes whose projection is gone (the GDS catalog lives in memory and is
// empty after a restart) and that nobody used within $grace_ms milliseconds. Params: $grace_ms.
MATCH (p:Projection)
WHERE p.last_used < timestamp() - $grace_ms AND NOT gds.graph.exists(p.name)
DETACH DELETE p
RETURN count(*) AS forgotten;
