// After live messages: the time of the session's last message, and the layers of the
// conversation that have not yet seen them (scenes, episodes: they read the whole
// conversation and catch up later). Params: $space, $conversation_id, $session_id,
// $last_message_at, $pending (layer names).
MATCH (c:Conversation {id: $conversation_id, space: $space})
      -[:HAS_SESSION]->(s:Session {id: $session_id})
SET s.last_message_at = $last_message_at,
    c.pending_layers = coalesce(c.pending_layers, [])
                       + [name IN $pending WHERE NOT name IN coalesce(c.pending_layers, [])]
RETURN s.id AS session, c.pending_layers AS pending;
