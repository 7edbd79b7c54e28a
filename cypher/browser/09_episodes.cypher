// EMA's layer: the space's most linked episodic units (captioned by speaker and tags), what
// superseded any of them, their RELATED links and the turns they come from. A Turn's
// `salience` property is its MemDecider score, admitted or not. Params: $space.
MATCH (e:Episode {space: $space})
WITH e, COUNT { (e)-[:RELATED|SUPERSEDED_BY]-() } AS degree
ORDER BY degree DESC, e.id LIMIT 8
MATCH (e)-[ft:FROM_TURN]->(t:Turn)
OPTIONAL MATCH (e)-[r:RELATED|SUPERSEDED_BY]-(other:Episode)
RETURN e, ft, t, r, other;
