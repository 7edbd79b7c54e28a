// Turns of one conversation, linked to their session and speaker. Params: $space,
// $turns (list of {id, session_id, speaker_id, order, speaker, text, source_id,
// image_caption, image_url}).
UNWIND $turns AS row
MATCH (s:Session {id: row.session_id, space: $space})
MATCH (who:Speaker {id: row.speaker_id, space: $space})
MERGE (t:Turn {id: row.id})
  ON CREATE SET t.space = $space
SET t.session_id = row.session_id, t.conversation_id = s.conversation_id,
    t.order = row.order, t.speaker = row.speaker, t.text = row.text,
    t.source_id = row.source_id, t.image_caption = row.image_caption,
    t.image_url = row.image_url
MERGE (s)-[:HAS_TURN]->(t)
MERGE (t)-[:SPOKEN_BY]->(who)
RETURN count(t) AS turns;
