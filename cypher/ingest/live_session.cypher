// Where live messages of one conversation go: its sessions in input order (with the time of
// their last message), the turns of the session asked for (the last one when $session is
// null), which of the given turn ids are stored already, and the layers waiting to catch up.
// Params: $space, $conversation_id, $session (a session key or null), $turn_ids.
OPTIONAL MATCH (c:Conversation {id: $conversation_id, space: $space})
OPTIONAL MATCH (c)-[:HAS_SESSION]->(s:Session)
WITH c, s ORDER BY s.index
WITH c, collect(s) AS sessions
WITH c, sessions,
     CASE WHEN $session IS NULL THEN last(sessions)
          ELSE head([x IN sessions WHERE x.key = $session]) END AS chosen
OPTIONAL MATCH (chosen)-[:HAS_TURN]->(t:Turn)
WITH c, sessions, chosen, t ORDER BY t.order
WITH c, sessions, chosen,
     collect(t {.order, .speaker, .text, .source_id, .image_caption, .image_url,
                          .said_at}) AS turns
RETURN c IS NOT NULL AS exists,
       coalesce(c.pending_layers, []) AS pending,
       CASE WHEN size(sessions) = 0 THEN -1 ELSE last(sessions).index END AS last_index,
       CASE WHEN chosen IS NULL THEN null
            ELSE chosen {.key, .index, .started_at, .date_text, .last_message_at,
                         turns: turns} END AS session,
       [id IN $turn_ids WHERE EXISTS { MATCH (:Turn {id: id}) }] AS stored_turn_ids;
