// Chain the events of a conversation in time with NEXT_EVENT and number them (seq); each
// boundary CLOSES the event before the one it opens. Stale links are dropped, so inserting a
// session earlier in time re-links correctly. Params: $space, $conversation_id.
MATCH (:Conversation {id: $conversation_id, space: $space})-[:HAS_SESSION]->(s:Session)
      -[:HAS_EVENT]->(e:Event)
WITH e ORDER BY s.started_at, s.index, e.order
WITH collect(e) AS events
UNWIND range(0, size(events) - 1) AS i
WITH events, i, events[i] AS a
SET a.seq = i
WITH events, i, a, CASE WHEN i + 1 < size(events) THEN events[i + 1] END AS b,
     CASE WHEN i > 0 THEN events[i - 1] END AS before
CALL (a, b) {
  OPTIONAL MATCH (a)-[stale:NEXT_EVENT]->(other)
  WHERE b IS NULL OR other <> b
  DELETE stale
}
CALL (a, b) {
  WITH a, b WHERE b IS NOT NULL
  MERGE (a)-[:NEXT_EVENT]->(b)
}
CALL (a, before) {
  MATCH (boundary:Boundary)-[:OPENS]->(a)
  OPTIONAL MATCH (boundary)-[stale:CLOSES]->(other)
  WHERE before IS NULL OR other <> before
  DELETE stale
  WITH boundary WHERE before IS NOT NULL
  MERGE (boundary)-[:CLOSES]->(before)
}
RETURN count(*) AS events;
