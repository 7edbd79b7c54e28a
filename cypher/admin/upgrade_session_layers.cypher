// Sessions written before layers were recorded (graphmem 0.1 graphs): record the layers they
// hold from what is linked to them. Runs once per client start; a no-op afterwards.
MATCH (s:Session)
WHERE s.layers IS NULL
SET s.layers = ['turns']
    + CASE WHEN EXISTS { (s)-[:HAS_EDU]->(:EDU) } THEN ['edus'] ELSE [] END
    + CASE WHEN EXISTS { (s)-[:HAS_EVENT]->(:Event) } THEN ['events'] ELSE [] END
    + CASE WHEN EXISTS { (s)-[:HAS_UNIT]->(:RetrievalUnit) } THEN ['segments'] ELSE [] END
    + CASE WHEN EXISTS { (s)-[:HAS_TURN]->(:Turn)<-[:FROM_TURN]-(:Scene) } THEN ['scenes']
           ELSE [] END
    + CASE WHEN EXISTS { (s)-[:HAS_EPISODE]->(:Episode) } THEN ['episodes'] ELSE [] END
RETURN count(s) AS upgraded;
