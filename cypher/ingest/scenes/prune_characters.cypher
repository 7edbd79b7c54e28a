// Characters of a space left in no scene (every scene naming them was removed).
// Params: $space.
MATCH (ch:Character {space: $space})
WHERE NOT EXISTS { (ch)-[:IN_SCENE]->(:Scene) }
DETACH DELETE ch
RETURN count(*) AS pruned;
