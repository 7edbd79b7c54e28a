// EMem-G: for each mention in the question, the nearest arguments of one space.
// Params: $space, $mentions (list of {text, embedding}), $k (per mention), $candidates.
UNWIND $mentions AS mention
CALL (mention) {
  CALL db.index.vector.queryNodes('argument_embedding', $candidates, mention.embedding)
  YIELD node, score
  WHERE node.space = $space
  RETURN node, score ORDER BY score DESC LIMIT $k
}
RETURN mention.text AS mention, node.id AS id, elementId(node) AS element_id,
       node.text AS text, score
ORDER BY mention, score DESC;
