// MMS units of one conversation: per round a RetrievalUnit (what a search matches) and its
// ContextUnit (what a context shows), one to one by SHOWS, both linked to the round's turns,
// the retrieval unit to its session. Params: $space, $units (list of {id, context_id,
// session_id, conversation_id, order, round, keywords, perspectives, episodic, semantic,
// retrieval_text, context_text, source_ids, source_turn_ids}).
UNWIND $units AS row
MATCH (s:Session {id: row.session_id, space: $space})
MERGE (r:RetrievalUnit {id: row.id})
  ON CREATE SET r.space = $space
SET r.conversation_id = row.conversation_id, r.session_id = row.session_id,
    r.order = row.order, r.round = row.round, r.keywords = row.keywords,
    r.perspectives = row.perspectives, r.episodic = row.episodic, r.text = row.retrieval_text,
    r.source_ids = row.source_ids
MERGE (c:ContextUnit {id: row.context_id})
  ON CREATE SET c.space = $space
SET c.conversation_id = row.conversation_id, c.session_id = row.session_id,
    c.round = row.round, c.keywords = row.keywords, c.perspectives = row.perspectives,
    c.semantic = row.semantic, c.text = row.context_text, c.source_ids = row.source_ids
MERGE (s)-[:HAS_UNIT]->(r)
MERGE (r)-[:SHOWS]->(c)
WITH r, c, row
UNWIND row.source_turn_ids AS turn_id
MATCH (t:Turn {id: turn_id, space: $space})
MERGE (r)-[:FROM_TURN]->(t)
MERGE (c)-[:FROM_TURN]->(t)
RETURN count(DISTINCT r) AS units;
