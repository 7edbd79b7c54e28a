// Before a conversation's layers are derived again from what remains of it: every node any
// layer derived from its turns (graphmem's own by label and conversation id, a plug-in's by
// its FROM_TURN links), so none keeps a word of what was forgotten or corrected; its sessions
// then hold only their turns until the layers are written again (a layer this process does not
// know is marked missing too, since its nodes went with the rest). The conversation's live
// version is raised, so a derivation under way elsewhere, which read the conversation before
// this change, starts again from what is stored instead of writing back what it read: its erase
// version is raised too, which only forgets and corrections do (`ingest/claim_derivation`).
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
  MATCH (c:Conversation {space: $space, id: $conversation_id})
  SET c.live_version = coalesce(c.live_version, 0) + 1,
      c.erase_version = coalesce(c.erase_version, 0) + 1
  RETURN count(c) AS conversations
}
CALL (*) {
  MATCH (s:Session {space: $space, conversation_id: $conversation_id})
  SET s.layers = [x IN coalesce(s.layers, []) WHERE x = 'turns']
  RETURN count(s) AS sessions
}
RETURN linked + labelled AS derived, sessions;
