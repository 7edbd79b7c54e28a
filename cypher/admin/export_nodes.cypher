// Every node of one space with its labels and properties, for a backup file. The key is
// only good within the read transaction that exports the space. Params: $space.
MATCH (n)
WHERE (n.space = $space OR (n:Space AND n.id = $space)) AND NOT n:Projection
RETURN elementId(n) AS key, labels(n) AS labels, properties(n) AS props
ORDER BY n.id;
