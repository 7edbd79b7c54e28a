// Forget one conversation whole: every node derived from its turns, by graphmem's layers or a
// plug-in's (found by provenance, its FROM_TURN links, and by the conversation's id), then its
// turns and sessions, and the conversation itself. Params: $space, $conversation_id.
CALL (*) {
  MATCH (t:Turn {space: $space, conversation_id: $conversation_id})<-[:FROM_TURN]-(d)
  WHERE NOT d:Turn
  WITH DISTINCT d
  DETACH DELETE d
  RETURN count(*) AS derived
}
CALL (*) {
  MATCH (n:Session|Turn|EDU|Event|Boundary|RetrievalUnit|ContextUnit|Scene|Profile|Episode
         {space: $space})
  WHERE n.conversation_id = $conversation_id
  DETACH DELETE n
  RETURN count(*) AS nodes
}
CALL (*) {
  MATCH (c:Conversation {space: $space, id: $conversation_id})
  DETACH DELETE c
  RETURN count(*) AS conversations
}
RETURN derived + nodes AS nodes, conversations;
