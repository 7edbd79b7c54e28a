// The conversations of one space, what each holds and when it was last spoken in.
// Params: $space.
MATCH (c:Conversation {space: $space})
CALL (c) {
  OPTIONAL MATCH (c)-[:HAS_SESSION]->(s:Session)
  OPTIONAL MATCH (s)-[:HAS_TURN]->(t:Turn)
  RETURN count(DISTINCT s) AS sessions, count(t) AS turns,
         min(s.started_at) AS first_session_at, max(s.started_at) AS last_session_at
}
RETURN c.key AS conversation, sessions, turns, first_session_at, last_session_at,
       coalesce(c.pending_layers, []) AS pending_layers
ORDER BY conversation;
