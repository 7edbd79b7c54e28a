// EMA: episodic units of one space by id (the units that replaced retrieved ones), in the
// shape of retrieve/episodes_vector, scored against the question.
// Params: $space, $ids, $embedding.
MATCH (s:Session)-[:HAS_EPISODE]->(e:Episode {space: $space})
WHERE e.id IN $ids
OPTIONAL MATCH (e)-[:SUPERSEDED_BY]->(newer:Episode)
RETURN e.id AS id, vector.similarity.cosine(e.embedding, $embedding) AS score,
       e.content AS content, e.speaker AS speaker, e.importance AS importance,
       e.confidence AS confidence, newer.id AS superseded_by, newer.started_at AS superseded_at,
       s.id AS session_id, s.started_at AS started_at, s.date_text AS date_text,
       COLLECT { MATCH (e)-[:FROM_TURN]->(t:Turn) WITH t ORDER BY t.seq
                 RETURN {id: t.id, source_id: t.source_id} } AS turns
ORDER BY id;
