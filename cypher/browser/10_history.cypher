// A space's history: its latest changes (captioned by kind: ingest, messages added, layers
// derived, forget, correct, restored from a backup), each with when, through which surface
// and the counts of what it touched in its properties. Params: $space.
MATCH (sp:Space {id: $space})-[r:CHANGED]->(c:Change)
WITH sp, r, c ORDER BY c.at DESC LIMIT 25
RETURN sp, r, c;
