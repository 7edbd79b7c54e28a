// Remove what a new segmentation no longer produces: events of the given sessions and
// boundaries of the conversation that are not in the keep lists, and turn links of kept
// events that no longer hold. Params: $space, $conversation_id, $session_ids, $keep_events,
// $keep_boundaries, $event_turns (list of {id, source_turn_ids}).
CALL (*) {
  MATCH (s:Session {space: $space})-[:HAS_EVENT]->(e:Event)
  WHERE s.id IN $session_ids AND NOT e.id IN $keep_events
  DETACH DELETE e
}
CALL (*) {
  MATCH (b:Boundary {space: $space, conversation_id: $conversation_id})
  WHERE NOT b.id IN $keep_boundaries
  DETACH DELETE b
}
CALL (*) {
  UNWIND $event_turns AS row
  MATCH (e:Event {id: row.id, space: $space})-[link:FROM_TURN]->(t:Turn)
  WHERE NOT t.id IN row.source_turn_ids
  DELETE link
}
RETURN true AS pruned;
