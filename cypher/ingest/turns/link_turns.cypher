// Chain all turns of a conversation in time with NEXT and number them (seq), dropping any
// NEXT edge that no longer joins neighbours (e.g. after a session was inserted earlier in
// time). Sessions order by start time, then input position; `links`: the pairs chained. Only
// what differs is written: a live message appended to a long conversation sets its own seq
// and one NEXT edge, instead of rewriting every turn inside the space's lock.
// Params: $space, $conversation_id.
MATCH (:Conversation {id: $conversation_id, space: $space})-[:HAS_SESSION]->(s:Session)
      -[:HAS_TURN]->(t:Turn)
WITH t ORDER BY s.started_at, s.index, t.order
WITH collect(t) AS turns
UNWIND range(0, size(turns) - 1) AS i
WITH i, turns[i] AS a, CASE WHEN i + 1 < size(turns) THEN turns[i + 1] END AS b
CALL (a, i) {
  WITH a, i WHERE a.seq IS NULL OR a.seq <> i
  SET a.seq = i
}
OPTIONAL MATCH (a)-[stale:NEXT]->(other)
WHERE b IS NULL OR other <> b
DELETE stale
WITH DISTINCT a, b
CALL (a, b) {
  WITH a, b WHERE b IS NOT NULL AND NOT (a)-[:NEXT]->(b)
  MERGE (a)-[:NEXT]->(b)
}
RETURN count(b) AS links;
