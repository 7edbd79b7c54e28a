// The characters a space knows already, speakers first, so that a new mention of one of them
// joins it instead of making a new character. Params: $space.
MATCH (ch:Character {space: $space})
RETURN ch.key AS key, ch.name AS name, coalesce(ch.aliases, []) AS aliases
ORDER BY EXISTS { (ch)-[:SPEAKS_AS]->(:Speaker) } DESC, ch.key;
