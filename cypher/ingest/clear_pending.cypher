// The given layers caught up with every turn of the conversation. Params: $space,
// $conversation_id, $layers.
MATCH (c:Conversation {id: $conversation_id, space: $space})
WITH c, [name IN coalesce(c.pending_layers, []) WHERE NOT name IN $layers] AS left
SET c.pending_layers = CASE WHEN size(left) = 0 THEN null ELSE left END
RETURN c.id AS conversation, left AS pending;
