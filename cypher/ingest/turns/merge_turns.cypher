// Turns of one conversation, linked to their session and speaker. Params: $space,
// $turns (list of {id, session_id, speaker_id, order, speaker, text, source_id,
// image_caption, image_url, said_at, payload}); said_at is when a live message was said (null
// for a file's turns, which have their session's date); a live message's payload (JSON text)
// is set when given and otherwise kept, so a session written again keeps its turns' payloads.
UNWIND $turns AS row
MATCH (s:Session {id: row.session_id, space: $space})
MATCH (who:Speaker {id: row.speaker_id, space: $space})
MERGE (t:Turn {id: row.id})
  ON CREATE SET t.space = $space
SET t.session_id = row.session_id, t.conversation_id = s.conversation_id,
    t.order = row.order, t.speaker = row.speaker, t.text = row.text,
    t.source_id = row.source_id, t.image_caption = row.image_caption,
    t.image_url = row.image_url, t.said_at = row.said_at,
    t.payload = coalesce(row.payload, t.payload)
MERGE (s)-[:HAS_TURN]->(t)
MERGE (t)-[:SPOKEN_BY]->(who)
RETURN count(t) AS turns;
