// Everything stored for one space, in a stable order: nodes with labels and properties
// (embeddings reduced to their size), and relationships. Used to check that a re-ingest
// changes nothing. Params: $space.
MATCH (n)
WHERE n.space = $space OR (n:Space AND n.id = $space)
WITH n ORDER BY n.id
OPTIONAL MATCH (n)-[r]->(m)
WITH n, r, m ORDER BY type(r), m.id
WITH n, collect(CASE WHEN r IS NULL THEN NULL ELSE type(r) + '>' + m.id END) AS out
RETURN labels(n) AS labels, n.id AS id,
       [k IN keys(n) WHERE k <> 'embedding' | [k, n[k]]] AS props,
       size(coalesce(n.embedding, [])) AS dims, out;
