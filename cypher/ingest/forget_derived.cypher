// Before a conversation's layers are derived again from what remains of it: every node its
// layers derived (statements, events and boundaries, units, scenes and profiles, episodic
// units), so none can keep a word of what was forgotten; its sessions then hold only their
// turns (and the layers this process does not know) until the layers are written again.
// Params: $space, $conversation_id, $known (the layers this process knows).
CALL (*) {
  MATCH (n:EDU|Event|Boundary|RetrievalUnit|ContextUnit|Scene|Profile|Episode {space: $space})
  WHERE n.conversation_id = $conversation_id
  DETACH DELETE n
  RETURN count(*) AS derived
}
CALL (*) {
  MATCH (s:Session {space: $space, conversation_id: $conversation_id})
  SET s.layers = [x IN coalesce(s.layers, []) WHERE x = 'turns' OR NOT x IN $known]
  RETURN count(s) AS sessions
}
RETURN derived, sessions;
