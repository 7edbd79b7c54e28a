// One page of a conversation's messages in time order (oldest or newest first), each with
// its session and the session's date. A page starts after the sequence number $cursor (the
// last one of the page before; null: the first page). Params: $space, $conversation_id,
// $since (sessions started at or after it; null: all), $newest_first, $cursor, $limit.
MATCH (:Conversation {space: $space, id: $conversation_id})-[:HAS_SESSION]->(s:Session)
      -[:HAS_TURN]->(t:Turn)
WHERE ($since IS NULL OR s.started_at >= $since)
  AND ($cursor IS NULL OR (CASE WHEN $newest_first THEN t.seq < $cursor
                                ELSE t.seq > $cursor END))
WITH s, t
ORDER BY CASE WHEN $newest_first THEN -t.seq ELSE t.seq END
LIMIT $limit
RETURN t.source_id AS id, t.id AS turn_id, t.seq AS seq, t.speaker AS speaker,
       t.text AS text, t.image_caption AS image_caption, t.payload AS payload,
       t.said_at AS said_at,
       s.key AS session,
       s.started_at AS session_started_at;
