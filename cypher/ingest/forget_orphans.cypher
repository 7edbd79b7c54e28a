// After something was forgotten: what no remaining turn supports any more. Arguments that no
// statement mentions, speakers who say nothing, characters in no scene. Params: $space.
CALL (*) {
  MATCH (a:Argument {space: $space})
  WHERE NOT EXISTS { MATCH (:EDU)-[:HAS_ARGUMENT]->(a) }
  DETACH DELETE a
  RETURN count(*) AS arguments
}
CALL (*) {
  MATCH (p:Speaker {space: $space})
  WHERE NOT EXISTS { MATCH (:Turn)-[:SPOKEN_BY]->(p) }
  DETACH DELETE p
  RETURN count(*) AS speakers
}
CALL (*) {
  MATCH (ch:Character {space: $space})
  WHERE NOT EXISTS { MATCH (ch)-[:IN_SCENE]->(:Scene) }
  DETACH DELETE ch
  RETURN count(*) AS characters
}
RETURN arguments, speakers, characters;
