// Conversations of a space whose whole-conversation layers wait for live messages, with the
// layers that wait. Params: $space, $conversation_id (one conversation, or null for all).
MATCH (c:Conversation {space: $space})
WHERE size(coalesce(c.pending_layers, [])) > 0
  AND ($conversation_id IS NULL OR c.id = $conversation_id)
RETURN c.key AS conversation, c.pending_layers AS pending
ORDER BY conversation;
