// The turns of a space in chain order, following NEXT from the first turn of a conversation.
// Params: $space, $conversation_id.
MATCH (first:Turn {space: $space, conversation_id: $conversation_id})
WHERE NOT ()-[:NEXT]->(first)
MATCH path = (first)-[:NEXT*0..]->(last:Turn)
WHERE NOT (last)-[:NEXT]->()
RETURN [t IN nodes(path) | t.source_id] AS chain;
