// Forget turns and whole sessions of one space: every node derived from a forgotten turn,
// whatever layer made it, then the turns, then the sessions (with any turn left in them).
// Params: $space, $session_ids (sessions forgotten whole), $turn_ids (turns forgotten).
CALL (*) {
  MATCH (t:Turn {space: $space})
  WHERE t.id IN $turn_ids OR t.session_id IN $session_ids
  MATCH (d)-[:FROM_TURN]->(t)
  WITH DISTINCT d
  DETACH DELETE d
  RETURN count(*) AS derived
}
CALL (*) {
  MATCH (t:Turn {space: $space})
  WHERE t.id IN $turn_ids OR t.session_id IN $session_ids
  DETACH DELETE t
  RETURN count(*) AS turns
}
CALL (*) {
  MATCH (s:Session {space: $space})
  WHERE s.id IN $session_ids
  DETACH DELETE s
  RETURN count(*) AS sessions
}
RETURN derived, turns, sessions;
