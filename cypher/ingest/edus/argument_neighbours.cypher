// For each new argument, the stored arguments of its space whose cosine with it reaches
// $threshold, closest first, at most $cap each: an exact scan of the space's own arguments,
// done in the database so that no vector leaves it. vector.similarity.cosine gives
// (1 + cosine) / 2; the cosine is returned. Params: $space, $rows (list of {id, embedding}),
// $threshold (a cosine), $cap.
UNWIND $rows AS row
CALL (row) {
  MATCH (a:Argument {space: $space})
  WHERE a.embedding IS NOT NULL AND a.id <> row.id
  WITH a, 2 * vector.similarity.cosine(row.embedding, a.embedding) - 1 AS cosine
  WHERE cosine >= $threshold
  RETURN a.id AS target, cosine
  ORDER BY cosine DESC, target
  LIMIT $cap
}
RETURN row.id AS source, target, cosine;
