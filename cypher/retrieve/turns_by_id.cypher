// Turns of one space by id, in the order given, rendered like every turn hit.
// Params: $space, $ids (list of Turn ids), $scores (a score per id, same order).
UNWIND range(0, size($ids) - 1) AS i
MATCH (s:Session)-[:HAS_TURN]->(turn:Turn {id: $ids[i], space: $space})
RETURN turn.id AS id, turn.text AS text, turn.speaker AS speaker,
       turn.image_caption AS image_caption, turn.source_id AS source_id,
       s.id AS session_id, s.started_at AS started_at, s.date_text AS date_text,
       $scores[i] AS score
ORDER BY i;
