// The stored conversations of a space as the input gave them: sessions in input order with
// their turns in spoken order. Used to add a layer to a space without its input file, and
// to bring whole-conversation layers up to date after live messages.
// Params: $space, $conversation_id (one conversation, or null for all).
MATCH (c:Conversation {space: $space})-[:HAS_SESSION]->(s:Session)
WHERE $conversation_id IS NULL OR c.id = $conversation_id
OPTIONAL MATCH (s)-[:HAS_TURN]->(t:Turn)
WITH c, s, t ORDER BY t.order
WITH c, s, collect(t {.order, .speaker, .text, .source_id, .image_caption, .image_url,
                          .said_at}) AS turns
ORDER BY s.index
RETURN c.key AS conversation, c.source_format AS source_format,
       collect(s {.key, .index, .started_at, .date_text, turns: turns}) AS sessions
ORDER BY conversation;
