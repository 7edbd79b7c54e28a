// Which turns of one space say something a later turn changed: for every episodic unit that
// EMA's update found superseded by a newer one, its turns, each with the newer unit's turns.
// Read with the space's turn table, once per revision. Params: $space.
MATCH (a:Episode {space: $space})-[:SUPERSEDED_BY]->(b:Episode)
MATCH (a)-[:FROM_TURN]->(old:Turn)
MATCH (b)-[:FROM_TURN]->(new:Turn)
WHERE old <> new
RETURN old.id AS old, collect(DISTINCT new.id) AS newer
ORDER BY old;
