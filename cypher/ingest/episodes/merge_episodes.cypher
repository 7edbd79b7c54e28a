// EMA episodic memory units of one conversation: content, time, participants, tags, summary,
// importance (MemDecider), confidence, a short title (the Browser's caption), the
// representation the Caller matches and what the unit was merged into (null unless a
// reorganisation found it a near-duplicate), linked from their session and to their turns.
// Params: $space, $units (list of {id, conversation_id, session_id, order, speaker, title,
// started_at, content, summary, tags, participants, importance, confidence, representation,
// merged_into, source_ids, source_turn_ids}).
UNWIND $units AS row
MATCH (s:Session {id: row.session_id, space: $space})
MERGE (e:Episode {id: row.id})
  ON CREATE SET e.space = $space
SET e.conversation_id = row.conversation_id, e.session_id = row.session_id,
    e.order = row.order, e.speaker = row.speaker, e.title = row.title,
    e.started_at = row.started_at, e.content = row.content, e.summary = row.summary,
    e.tags = row.tags, e.participants = row.participants, e.importance = row.importance,
    e.confidence = row.confidence, e.representation = row.representation,
    e.merged_into = row.merged_into, e.source_ids = row.source_ids
MERGE (s)-[:HAS_EPISODE]->(e)
WITH e, row
CALL (e, row) {
  UNWIND row.source_turn_ids AS turn_id
  MATCH (t:Turn {id: turn_id, space: $space})
  MERGE (e)-[:FROM_TURN]->(t)
}
RETURN count(e) AS units;
