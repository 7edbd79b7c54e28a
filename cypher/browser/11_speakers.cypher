// Who is who: each speaker of a space with the names the conversation also calls them by
// (the aliases property: "Mel" for Melanie, learnt from greetings and introductions by the
// scenes layer), their character, and how many turns they said. Params: $space.
MATCH (s:Speaker {space: $space})
OPTIONAL MATCH (ch:Character)-[sa:SPEAKS_AS]->(s)
RETURN s, sa, ch, coalesce(s.aliases, []) AS aliases,
       COUNT { (:Turn)-[:SPOKEN_BY]->(s) } AS turns
ORDER BY turns DESC, s.name;
