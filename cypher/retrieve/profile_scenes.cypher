// CAST, ours: the scenes in the profiles of the characters a question names, nearest the
// question first, with what the filters need. Params: $space, $keys (character keys),
// $embedding, $k.
MATCH (ch:Character {space: $space})-[:HAS_PROFILE]->(:Profile)-[:FEATURES]->(scene:Scene)
WHERE ch.key IN $keys AND scene.embedding IS NOT NULL
WITH DISTINCT scene
WITH scene, vector.similarity.cosine(scene.embedding, $embedding) AS score
ORDER BY score DESC, scene.id LIMIT $k
RETURN scene.id AS id, score, scene.participants AS participants, scene.place AS place,
       scene.started_at AS started_at, scene.ended_at AS ended_at,
       COLLECT { MATCH (scene)-[:FROM_TURN]->(t:Turn) RETURN t.id ORDER BY t.seq } AS turn_ids
ORDER BY score DESC, id;
