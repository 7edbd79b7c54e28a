// Where live messages of one conversation go: its sessions in input order (with the time of
// their last message), the session asked for (the last one when $session is null) with its
// last order and number of turns, which of the given turn ids are stored already or were
// forgotten (by the digests of ingest/forget_ids: $digests gives each id's, keyed and
// plain), and the layers waiting to catch up.
// Params: $space, $conversation_id, $session (a session key or null), $turn_ids, $digests
// (each turn id's digest, in the same order), $whole (true: every field of every turn of
// the session, in no particular order, for layers that re-read the session; false: no
// turns, which is all appending needs: an add then reads no text of a long session).
OPTIONAL MATCH (sp:Space {id: $space})
WITH coalesce(sp.forgotten, []) AS forgotten
OPTIONAL MATCH (c:Conversation {id: $conversation_id, space: $space})
OPTIONAL MATCH (c)-[:HAS_SESSION]->(s:Session)
WITH forgotten, c, s ORDER BY s.index
WITH forgotten, c, collect(s) AS sessions
WITH forgotten, c, sessions,
     CASE WHEN $session IS NULL THEN last(sessions)
          ELSE head([x IN sessions WHERE x.key = $session]) END AS chosen
CALL (chosen) {
  OPTIONAL MATCH (chosen)-[:HAS_TURN]->(t:Turn)
  WHERE $whole
  RETURN collect(t {.order, .speaker, .text, .source_id, .image_caption, .image_url,
                    .said_at}) AS turns
}
CALL (chosen) {
  // the session's last turn from the turn_order index: one entry read, however long it is
  MATCH (t:Turn)
  WHERE t.session_id = chosen.id AND t.order >= 0
  WITH t ORDER BY t.session_id DESC, t.order DESC LIMIT 1
  RETURN head(collect(t.order)) AS last_order
}
WITH forgotten, c, sessions, chosen, turns, last_order,
     COUNT { (chosen)-[:HAS_TURN]->() } AS size
RETURN c IS NOT NULL AS exists,
       coalesce(c.pending_layers, []) AS pending,
       CASE WHEN size(sessions) = 0 THEN -1 ELSE last(sessions).index END AS last_index,
       CASE WHEN chosen IS NULL THEN null
            ELSE chosen {.key, .index, .started_at, .date_text, .last_message_at,
                         turns: turns, last_order: coalesce(last_order, -1),
                         size: size} END AS session,
       [id IN $turn_ids WHERE EXISTS { MATCH (:Turn {id: id}) }] AS stored_turn_ids,
       [i IN range(0, size($turn_ids) - 1) WHERE any(d IN $digests[i] WHERE d IN forgotten)
        | $turn_ids[i]] AS forgotten_turn_ids;
