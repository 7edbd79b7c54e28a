// A question asked in a turn, linked to that turn and to the reply that answers it.
// The node keeps the question's text, so it is derived data that forgetting the turn
// must remove: it links to its turn (FROM_TURN), as every derived node does.
// Params: $space, $rows (list of {id, text, session_id, turn_id, answer_id}).
UNWIND $rows AS row
MATCH (t:Turn {id: row.turn_id, space: $space})
MERGE (q:Question {id: row.id})
  ON CREATE SET q.space = $space
SET q.session_id = row.session_id, q.text = row.text
MERGE (q)-[:FROM_TURN]->(t)
WITH q, row
OPTIONAL MATCH (a:Turn {id: row.answer_id, space: $space})
FOREACH (_ IN CASE WHEN a IS NULL THEN [] ELSE [1] END | MERGE (q)-[:ANSWERED_BY]->(a))
RETURN count(q) AS questions;
