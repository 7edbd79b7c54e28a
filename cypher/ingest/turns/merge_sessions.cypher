// Sessions of one conversation. Params: $space, $conversation_id,
// $sessions (list of {id, key, index, started_at, date_text}).
MATCH (c:Conversation {id: $conversation_id, space: $space})
UNWIND $sessions AS row
MERGE (s:Session {id: row.id})
  ON CREATE SET s.space = $space, s.conversation_id = $conversation_id
SET s.key = row.key, s.index = row.index, s.started_at = row.started_at,
    s.date_text = row.date_text
MERGE (c)-[:HAS_SESSION]->(s)
RETURN count(s) AS sessions;
