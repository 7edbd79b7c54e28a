// CAST's layer: the most present character of the space, the scenes they are in (the edge
// says main or supporting), their profile, and each scene's turns one click further. Double
// click a scene to draw its other characters. Params: $space.
MATCH (ch:Character {space: $space})-[:IN_SCENE]->(:Scene)
WITH ch, count(*) AS scenes ORDER BY scenes DESC, ch.key LIMIT 1
MATCH (ch)-[r:IN_SCENE]->(sc:Scene)
WITH ch, r, sc ORDER BY sc.started_at, sc.order LIMIT 12
MATCH (sc)-[ft:FROM_TURN]->(t:Turn)
OPTIONAL MATCH (ch)-[hp:HAS_PROFILE]->(p:Profile)
RETURN ch, r, sc, ft, t, hp, p;
