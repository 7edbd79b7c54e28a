// Strategy `graphmem`: the embeddings of some units of one space, by kind and id: what the
// client lacks after the space changed (graphmem/retrieve/fused/space_vectors.py).
// Params: $space, $rows (list of {kind, id}; kind of 'vector', 'units', 'edus', 'scenes',
// 'episodes').
UNWIND $rows AS row
CALL (row) {
  WITH row WHERE row.kind = 'vector'
  MATCH (n:Turn {id: row.id}) RETURN n
  UNION ALL
  WITH row WHERE row.kind = 'units'
  MATCH (n:RetrievalUnit {id: row.id}) RETURN n
  UNION ALL
  WITH row WHERE row.kind = 'edus'
  MATCH (n:EDU {id: row.id}) RETURN n
  UNION ALL
  WITH row WHERE row.kind = 'scenes'
  MATCH (n:Scene {id: row.id}) RETURN n
  UNION ALL
  WITH row WHERE row.kind = 'episodes'
  MATCH (n:Episode {id: row.id}) RETURN n
}
WITH row, n WHERE n.space = $space
RETURN row.kind AS kind, row.id AS id, n.embedded_hash AS hash, n.embedding AS embedding;
