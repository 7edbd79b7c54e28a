// Conversations of a space with work left by live messages: the layers to derive, the
// sessions whose session-scoped layers wait, and what `ingest/claim_derivation` compares: the
// live and erase versions read with them, and the node itself (a restore, or a delete and a new
// ingest, makes a new one).
// Params: $space, $conversation_id (one conversation, or null for all).
MATCH (c:Conversation {space: $space})
WHERE size(coalesce(c.pending_layers, [])) > 0
  AND ($conversation_id IS NULL OR c.id = $conversation_id)
RETURN c.key AS conversation, c.pending_layers AS pending,
       coalesce(c.pending_sessions, []) AS sessions, coalesce(c.live_version, 0) AS version,
       coalesce(c.erase_version, 0) AS erased, elementId(c) AS node
ORDER BY conversation;
