// ES-Mem events of some sessions: each linked to its session and to the turns it spans.
// Params: $space, $events (list of {id, session_id, conversation_id, order, name, summary,
// topics, keywords, source_ids, source_turn_ids, started_at, date_text}).
UNWIND $events AS row
MATCH (s:Session {id: row.session_id, space: $space})
MERGE (e:Event {id: row.id})
  ON CREATE SET e.space = $space
SET e.conversation_id = row.conversation_id, e.session_id = row.session_id,
    e.order = row.order, e.name = row.name, e.summary = row.summary, e.topics = row.topics,
    e.keywords = row.keywords, e.source_ids = row.source_ids, e.turn_count = size(row.source_ids),
    e.started_at = row.started_at, e.date_text = row.date_text
MERGE (s)-[:HAS_EVENT]->(e)
WITH e, row
UNWIND row.source_turn_ids AS turn_id
MATCH (t:Turn {id: turn_id, space: $space})
MERGE (e)-[:FROM_TURN]->(t)
RETURN count(DISTINCT e) AS events;
