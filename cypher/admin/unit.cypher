// Any node of one space by id: its kind, its properties (vectors left out) and the turns it
// comes from, in time order (a turn is its own source; a session's are its turns). A node of
// graphmem's own labels is found by its label's id index; any other (a plug-in layer's) through
// the turns it comes from (FROM_TURN), which every derived node links to; and, for a turn,
// the nodes every layer derived from it (its EDUs, events, boundaries, units, scenes,
// characters, episodes...), by kind. Params: $space, $id.
OPTIONAL MATCH (own:Space|Conversation|Session|Speaker|Turn|EDU|Argument|Event|Boundary
                |RetrievalUnit|ContextUnit|Character|Scene|Profile|Episode {id: $id})
WHERE own.space = $space OR (own:Space AND own.id = $space)
CALL (own) {
  WITH own WHERE own IS NOT NULL
  RETURN own AS n
  UNION
  WITH own WHERE own IS NULL
  MATCH (:Turn {space: $space})<-[:FROM_TURN]-(n {id: $id})
  WHERE n.space = $space
  RETURN n
}
CALL (n) {
  OPTIONAL MATCH (n)-[:FROM_TURN|HAS_TURN]->(f:Turn)
  WITH n, collect(DISTINCT f) AS linked
  WITH linked + CASE WHEN n:Turn THEN [n] ELSE [] END AS found
  UNWIND found AS t
  WITH t ORDER BY t.seq
  RETURN collect(t {.id, .source_id, .speaker, .text, .seq}) AS sources
}
CALL (n) {
  OPTIONAL MATCH (n)<-[:FROM_TURN]-(d)
  WHERE n:Turn AND d.space = $space
  WITH d ORDER BY labels(d)[0], d.id
  RETURN collect(d {kind: labels(d)[0], .id, text: coalesce(d.text, d.summary, d.name)})
         AS derived
}
RETURN labels(n)[0] AS kind, n.id AS id,
       [k IN keys(n) WHERE k <> 'embedding' | [k, n[k]]] AS properties, sources, derived;
