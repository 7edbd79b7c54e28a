// A refresh derived the given layers for the given sessions: they no longer wait, unless a
// message arrived after the refresh read them ($version is the live version it read).
// Params: $space, $conversation_id, $layers, $sessions, $version.
MATCH (c:Conversation {id: $conversation_id, space: $space})
WITH c, c.live_version = $version AS current
WITH c, current,
     [name IN coalesce(c.pending_layers, []) WHERE NOT (current AND name IN $layers)] AS layers,
     [key IN coalesce(c.pending_sessions, []) WHERE NOT (current AND key IN $sessions)]
       AS sessions
SET c.pending_layers = CASE WHEN size(layers) = 0 THEN null ELSE layers END,
    c.pending_sessions = CASE WHEN size(sessions) = 0 THEN null ELSE sessions END
RETURN c.id AS conversation, current AS cleared, layers AS pending, sessions;
