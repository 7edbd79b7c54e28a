// After a live add that only appended turns: number the new turns after the conversation's
// last one and chain them to it. The last one is found by the turn_chain index, so an add to
// a session of thousands of turns holds the space's lock as briefly as an add to a short one
// (ingest/turns/link_turns sorts the whole conversation). It applies when the new turns come
// last in time: their session is the conversation's last by start time and input position,
// and their orders follow the last turn's when it is of the same session (an earlier
// session's last turn means this one held none). Otherwise it writes nothing and `linked` is
// false: chain with link_turns instead.
// Params: $space, $conversation_id, $session_id, $turn_ids (the new turns, in order).
MATCH (:Conversation {id: $conversation_id, space: $space})-[:HAS_SESSION]->(s:Session)
WITH s ORDER BY s.started_at, s.index
WITH collect(s) AS sessions
WITH size(sessions) AS held, last(sessions) AS here
CALL () {
  // ordered by both of the index's properties, the seek reads one entry, not the chain
  MATCH (o:Turn)
  WHERE o.conversation_id = $conversation_id AND o.seq >= 0
  WITH o ORDER BY o.conversation_id DESC, o.seq DESC LIMIT 1
  RETURN head(collect(o)) AS tail
}
CALL () {
  UNWIND $turn_ids AS id
  MATCH (t:Turn {id: id})
  RETURN collect(t) AS fresh
}
WITH tail, fresh,
     here.id = $session_id AND size(fresh) = size($turn_ids)
     AND all(t IN fresh WHERE t.session_id = $session_id AND t.seq IS NULL
                              AND NOT (t)-[:NEXT]-())
     AND CASE WHEN tail.session_id = $session_id
              THEN all(t IN fresh WHERE t.order > tail.order)
              // else the session holds only the new turns, after an earlier session's
              // last turn or as the conversation's first
              ELSE COUNT { (here)-[:HAS_TURN]->() } = size($turn_ids)
                   AND (tail IS NOT NULL OR held = 1) END
     AND (tail IS NULL OR NOT (tail)-[:NEXT]->()) AS linked
CALL (tail, fresh, linked) {
  WITH tail, fresh WHERE linked
  UNWIND range(0, size($turn_ids) - 1) AS i
  WITH tail, [t IN fresh WHERE t.id = $turn_ids[i]][0] AS t, i
  SET t.seq = coalesce(tail.seq, -1) + 1 + i
  WITH tail, collect(t) AS chain
  WITH [x IN [tail] WHERE x IS NOT NULL] + chain AS chain
  UNWIND range(0, size(chain) - 2) AS i
  WITH chain[i] AS a, chain[i + 1] AS b
  MERGE (a)-[:NEXT]->(b)
  RETURN count(*) AS links
}
RETURN linked;
