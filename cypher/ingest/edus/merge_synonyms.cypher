// Synonym edges between arguments whose embeddings are close (one direction, from the lower
// id). Params: $space, $pairs (list of {source, target, score}).
UNWIND $pairs AS pair
MATCH (a:Argument {id: pair.source, space: $space})
MATCH (b:Argument {id: pair.target, space: $space})
MERGE (a)-[r:SYNONYM]->(b)
SET r.score = pair.score
RETURN count(r) AS synonyms;
