// Arguments: the entities and concepts that EDUs mention, one node per normalised text in a
// space. Params: $space, $arguments (list of {id, text}).
UNWIND $arguments AS row
MERGE (a:Argument {id: row.id})
  ON CREATE SET a.space = $space, a.text = row.text
RETURN count(a) AS arguments;
