// Before a conversation's layers are derived again from what remains of it: every node any
// layer derived from its turns (graphmem's own by label and conversation id, a plug-in's by
// its FROM_TURN links), so none keeps a word of what was forgotten or corrected; its sessions
// then hold only their turns until the layers are written again (a layer this process does not
// know is marked missing too, since its nodes went with the rest).
// Params: $space, $conversation_id.
CALL (*) {
  MATCH (t:Turn {space: $space, conversation_id: $conversation_id})<-[:FROM_TURN]-(d)
  WHERE NOT d:Turn
  WITH DISTINCT d
  DETACH DELETE d
  RETURN count(*) AS linked
}
CALL (*) {
  MATCH (n:EDU|Event|Boundary|RetrievalUnit|ContextUnit|Scene|Profile|Episode {space: $space})
  WHERE n.conversation_id = $conversation_id
  DETACH DELETE n
  RETURN count(*) AS labelled
}
CALL (*) {
  MATCH (s:Session {space: $space, conversation_id: $conversation_id})
  SET s.layers = [x IN coalesce(s.layers, []) WHERE x = 'turns']
  RETURN count(s) AS sessions
}
RETURN linked + labelled AS derived, sessions;
