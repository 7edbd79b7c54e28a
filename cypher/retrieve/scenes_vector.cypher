// CAST episodic retrieval: the scenes of one space whose summary is nearest the question,
// with what the filters need (participants, time span, place) and the ids of their turns.
// Params: $space, $embedding, $k, $exact (scan the space's scenes exactly instead of the
// index), $candidates (neighbours fetched before the space filter).
CALL () {
  WITH 1 AS one WHERE $exact
  MATCH (node:Scene {space: $space}) WHERE node.embedding IS NOT NULL
  RETURN node, vector.similarity.cosine(node.embedding, $embedding) AS score
  UNION ALL
  WITH 1 AS one WHERE NOT $exact
  CALL db.index.vector.queryNodes('scene_embedding', $candidates, $embedding) YIELD node, score
  WHERE node.space = $space
  RETURN node, score
}
WITH node AS scene, score ORDER BY score DESC LIMIT $k
RETURN scene.id AS id, score, scene.participants AS participants, scene.place AS place,
       scene.started_at AS started_at, scene.ended_at AS ended_at,
       COLLECT { MATCH (scene)-[:FROM_TURN]->(t:Turn) RETURN t.id ORDER BY t.seq } AS turn_ids
ORDER BY score DESC, id;
