// Every relationship leaving a node of one space, with its type and properties, for a backup
// file (keys as in export_nodes, same transaction). Params: $space.
MATCH (n)-[r]->(m)
WHERE (n.space = $space OR (n:Space AND n.id = $space)) AND NOT n:Projection
RETURN elementId(n) AS from, elementId(m) AS to, type(r) AS type, properties(r) AS props
ORDER BY n.id, type(r), m.id;
