// EMem's layer: the statements (EDUs) of the first session, the turns they come from and the
// arguments that join them into a graph. Params: $space.
MATCH (s:Session {space: $space})
WITH s ORDER BY s.started_at, s.index LIMIT 1
MATCH (s)-[:HAS_EDU]->(e:EDU)-[ft:FROM_TURN]->(t:Turn)
OPTIONAL MATCH (e)-[ha:HAS_ARGUMENT]->(a:Argument)
RETURN e, ft, t, ha, a;
