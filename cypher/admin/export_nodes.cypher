// Every node of one space with its labels and properties, for a backup file; the space's
// revision and time of change are left out (a restore is a change and gets its own), the
// digests of its forgotten message ids kept (a restored space refuses them too). The key
// is only good within the read transaction that exports the space. Params: $space.
MATCH (n)
WHERE (n.space = $space OR (n:Space AND n.id = $space)) AND NOT n:Projection
RETURN elementId(n) AS key, labels(n) AS labels,
       CASE WHEN n:Space THEN n {.id, .forgotten} ELSE properties(n) END AS props
ORDER BY n.id;
