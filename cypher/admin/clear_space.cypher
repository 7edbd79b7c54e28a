// Remove every node of one space inside the caller's transaction (a restore replacing the
// space: the old state stays if the restore fails). Params: $space.
MATCH (n)
WHERE (n.space = $space OR (n:Space AND n.id = $space)) AND NOT n:Projection
DETACH DELETE n;
