// Move staged vectors in (inside the transaction that holds the space's lock): a node whose
// staged hash is the one given gets its `embedding_next` as `embedding` and that hash as
// `embedded_hash`; any other staged pair (of another model or an older text) is only removed.
// Params: $space, $rows (list of {key, hash}: elementIds from vector_texts).
UNWIND $rows AS row
MATCH (n) WHERE elementId(n) = row.key AND n.space = $space
WITH n, n.embedded_hash_next = row.hash AND n.embedding_next IS NOT NULL AS moves
FOREACH (_ IN CASE WHEN moves THEN [1] ELSE [] END |
  SET n.embedding = n.embedding_next, n.embedded_hash = n.embedded_hash_next)
REMOVE n.embedding_next, n.embedded_hash_next
RETURN count(CASE WHEN moves THEN 1 END) AS swapped;
