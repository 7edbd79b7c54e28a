// The first session of a space: its turns in spoken order, and who said each.
// Params: $space.
MATCH (s:Session {space: $space})
WITH s ORDER BY s.started_at, s.index LIMIT 1
MATCH (s)-[h:HAS_TURN]->(t:Turn)-[by:SPOKEN_BY]->(p:Speaker)
OPTIONAL MATCH (t)-[n:NEXT]->(u:Turn)<-[:HAS_TURN]-(s)
RETURN s, h, t, by, p, n, u;
