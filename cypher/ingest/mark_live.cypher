// After live messages: the time of the session's last message, the conversation's pending
// work (layers not yet derived for the new turns, and sessions whose session-scoped layers
// wait), and its live version, raised by every add so that a refresh started earlier never
// clears this work. Params: $space, $conversation_id, $session_id, $last_message_at,
// $pending (layer names), $sessions (session keys).
MATCH (c:Conversation {id: $conversation_id, space: $space})
      -[:HAS_SESSION]->(s:Session {id: $session_id})
SET s.last_message_at = $last_message_at,
    c.live_version = coalesce(c.live_version, 0) + 1,
    c.pending_layers = coalesce(c.pending_layers, [])
                       + [name IN $pending WHERE NOT name IN coalesce(c.pending_layers, [])],
    c.pending_sessions = coalesce(c.pending_sessions, [])
                         + [key IN $sessions WHERE NOT key IN coalesce(c.pending_sessions, [])]
RETURN s.id AS session, c.pending_layers AS pending, c.pending_sessions AS sessions,
       c.live_version AS version;
