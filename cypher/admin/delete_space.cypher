// Remove every node of one space (and its relationships), in batches. Other spaces are
// untouched: every node graphmem writes carries its space id. Params: $space.
MATCH (n)
WHERE n.space = $space OR (n:Space AND n.id = $space)
CALL (n) {
  DETACH DELETE n
} IN TRANSACTIONS OF 5000 ROWS;
