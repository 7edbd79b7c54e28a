// Questions of the given sessions that the input no longer asks. Params: $space,
// $session_ids, $keep.
MATCH (q:Question {space: $space})
WHERE q.session_id IN $session_ids AND NOT q.id IN $keep
DETACH DELETE q
RETURN count(*) AS pruned;
