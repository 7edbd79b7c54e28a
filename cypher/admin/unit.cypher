// Any node of one space by id: its kind, its properties (vectors left out) and the turns it
// comes from, in time order (a turn is its own source; a session's are its turns).
// Params: $space, $id.
MATCH (n:Space|Conversation|Session|Turn|Speaker|EDU|Argument|Event|Boundary|RetrievalUnit
       |ContextUnit|Character|Scene|Profile|Episode {id: $id})
WHERE n.space = $space OR (n:Space AND n.id = $space)
CALL (n) {
  OPTIONAL MATCH (n)-[:FROM_TURN|HAS_TURN]->(f:Turn)
  WITH n, collect(DISTINCT f) AS linked
  WITH linked + CASE WHEN n:Turn THEN [n] ELSE [] END AS found
  UNWIND found AS t
  WITH t ORDER BY t.seq
  RETURN collect(t {.id, .source_id, .speaker, .text, .seq}) AS sources
}
RETURN labels(n)[0] AS kind, n.id AS id,
       [k IN keys(n) WHERE k <> 'embedding' | [k, n[k]]] AS properties, sources;
