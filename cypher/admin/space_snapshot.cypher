// Everything stored for one space, in a stable order: nodes with labels and properties sorted
// by key (embeddings reduced to their size), and relationships. Used to check that a re-ingest
// or a restore changes nothing: the order Neo4j keeps a node's keys in is not part of it, nor
// are the space's revision, time of change, epoch, list of appended turns and history (every
// write adds to them).
// Params: $space.
MATCH (n)
WHERE (n.space = $space OR (n:Space AND n.id = $space)) AND NOT n:Change
WITH n ORDER BY n.id
CALL (n) {
  UNWIND keys(n) AS k
  WITH k WHERE NOT k IN ['embedding', 'revision', 'changed_at', 'epoch', 'appended']
  ORDER BY k
  RETURN collect([k, n[k]]) AS props
}
OPTIONAL MATCH (n)-[r]->(m)
WHERE NOT m:Change
WITH n, props, r, m ORDER BY type(r), m.id
WITH n, props, collect(CASE WHEN r IS NULL THEN NULL ELSE type(r) + '>' + m.id END) AS out
RETURN labels(n) AS labels, n.id AS id, props,
       size(coalesce(n.embedding, [])) AS dims, out;
