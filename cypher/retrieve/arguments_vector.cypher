// EMem-G: for each mention in the question, the nearest arguments of one space.
// Params: $space, $mentions (list of {text, embedding}), $k (per mention), $exact (scan the
// space's own nodes exactly instead of the index), $candidates.
UNWIND $mentions AS mention
CALL (mention) {
  CALL (mention) {  // exact: a scan of the space; else the index, filtered to the space
    WITH mention WHERE $exact
    MATCH (node:Argument {space: $space}) WHERE node.embedding IS NOT NULL
    RETURN node, vector.similarity.cosine(node.embedding, mention.embedding) AS score
    UNION ALL
    WITH mention WHERE NOT $exact
    CALL db.index.vector.queryNodes('argument_embedding', $candidates, mention.embedding)
    YIELD node, score
    WHERE node.space = $space
    RETURN node, score
  }
  RETURN node, score ORDER BY score DESC LIMIT $k
}
RETURN mention.text AS mention, node.id AS id, elementId(node) AS element_id,
       node.text AS text, score
ORDER BY mention, score DESC;
