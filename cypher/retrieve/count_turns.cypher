// How many turns one space holds, and how many the whole database holds (to size the
// vector-index candidate pool so that filtering to the space still leaves enough).
// Params: $space.
MATCH (t:Turn {space: $space})
WITH count(t) AS in_space
MATCH (other:Turn)
RETURN in_space, count(other) AS in_database;
