// ES-Mem's layer: the first events of a space along their chain, with the boundaries that
// open them. Params: $space.
MATCH (e:Event {space: $space})
WITH e ORDER BY e.conversation_id, e.seq LIMIT 8
OPTIONAL MATCH (e)-[n:NEXT_EVENT]->(f:Event)
OPTIONAL MATCH (b:Boundary)-[o:OPENS]->(e)
RETURN e, n, f, b, o;
