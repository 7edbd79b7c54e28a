// EMem step 1: the EDUs of one space nearest to the question (vector index), with their
// sessions and source turns. Params: $space, $embedding, $k, $exact (scan the space's own nodes
// exactly instead of the index), $candidates (neighbours fetched
// before the space filter).
CALL () {  // exact: a scan of the space; else the index, filtered to the space
  WITH 1 AS one WHERE $exact
  MATCH (node:EDU {space: $space}) WHERE node.embedding IS NOT NULL
  RETURN node, vector.similarity.cosine(node.embedding, $embedding) AS score
  UNION ALL
  WITH 1 AS one WHERE NOT $exact
  CALL db.index.vector.queryNodes('edu_embedding', $candidates, $embedding) YIELD node, score
  WHERE node.space = $space
  RETURN node, score
}
WITH node AS edu, score ORDER BY score DESC LIMIT $k
MATCH (s:Session)-[:HAS_EDU]->(edu)
OPTIONAL MATCH (edu)-[:FROM_TURN]->(t:Turn)
WITH edu, score, s, collect(t.id) AS turn_ids
RETURN edu.id AS id, elementId(edu) AS element_id, edu.kind AS kind, edu.text AS text,
       edu.rendered AS rendered, edu.speaker AS speaker, edu.source_ids AS source_ids,
       turn_ids, s.id AS session_id, s.started_at AS started_at, s.date_text AS date_text,
       score
ORDER BY score DESC, id;
