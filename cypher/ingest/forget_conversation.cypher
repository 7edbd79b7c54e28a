// Forget one conversation whole: its sessions, turns and every node derived from it (each
// carries the conversation's id), and the conversation itself. Params: $space,
// $conversation_id.
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
RETURN nodes, conversations;
