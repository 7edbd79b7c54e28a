// Every argument of a space that has an embedding, with it (to find synonyms of many new
// arguments at once; a few are compared in the database: ingest/edus/argument_neighbours).
// Params: $space.
MATCH (a:Argument {space: $space})
WHERE a.embedding IS NOT NULL
RETURN a.id AS id, a.text AS text, a.embedding AS embedding;
