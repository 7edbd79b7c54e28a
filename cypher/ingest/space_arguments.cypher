// Every argument of a space that has an embedding (to find synonyms of new ones).
// Params: $space.
MATCH (a:Argument {space: $space})
WHERE a.embedding IS NOT NULL
RETURN a.id AS id, a.text AS text, a.embedding AS embedding;
