// After a forget or a correction removed what a conversation's layers derived: those layers
// wait to be derived again from what remains, as the layers of live messages wait (the live
// writer's worker, `graphmem refresh`, or the next call in inline mode derive them), over
// every session the conversation still has. Params: $space, $conversation_id, $pending (the
// layer names).
MATCH (c:Conversation {id: $conversation_id, space: $space})
OPTIONAL MATCH (c)-[:HAS_SESSION]->(s:Session)
WITH c, [key IN collect(s.key) WHERE size($pending) > 0] AS keys
SET c.pending_layers = coalesce(c.pending_layers, [])
                       + [name IN $pending WHERE NOT name IN coalesce(c.pending_layers, [])],
    c.pending_sessions = coalesce(c.pending_sessions, [])
                         + [key IN keys WHERE NOT key IN coalesce(c.pending_sessions, [])]
RETURN c.pending_layers AS pending, c.pending_sessions AS sessions;
