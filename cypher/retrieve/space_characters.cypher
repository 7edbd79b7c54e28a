// The names of a space's characters, to find the persons a question names.
// Params: $space.
MATCH (ch:Character {space: $space})
RETURN ch.key AS key, ch.name AS name, coalesce(ch.aliases, []) AS aliases
ORDER BY ch.key;
