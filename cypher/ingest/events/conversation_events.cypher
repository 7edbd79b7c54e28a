// The stored events and boundaries of a conversation: what ES-Mem needs to describe the
// boundaries of newly written sessions, and which embeddings can be kept.
// Params: $space, $conversation_id, $context (turns kept from each end of an event).
MATCH (:Conversation {id: $conversation_id, space: $space})-[:HAS_SESSION]->(s:Session)
      -[:HAS_EVENT]->(e:Event)
OPTIONAL MATCH (e)-[:FROM_TURN]->(t:Turn)
WITH s, e, t ORDER BY t.order
WITH s, e, collect(t {.id, .speaker, .text, .image_caption}) AS turns
OPTIONAL MATCH (b:Boundary)-[:OPENS]->(e)
RETURN e.id AS id, s.id AS session_id, s.started_at AS started_at, s.index AS session_index,
       e.order AS order, e.summary AS summary, e.topics AS topics, e.date_text AS date_text,
       turns[..$context] AS first_turns, turns[-$context..] AS last_turns,
       e.keywords AS keywords, e.source_ids AS source_ids,
       e.embedded_hash AS embedded_hash, b.id AS boundary_id,
       b.embedded_hash AS boundary_hash, b.p_eb AS p_eb
ORDER BY started_at, session_index, order;
