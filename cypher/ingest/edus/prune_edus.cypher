// Remove EDUs of the given sessions that the latest extraction no longer produces (the turn
// changed), so a re-ingest leaves exactly the current statements. Params: $space,
// $session_ids, $keep (ids of the EDUs just written).
MATCH (s:Session {space: $space})-[:HAS_EDU]->(e:EDU)
WHERE s.id IN $session_ids AND NOT e.id IN $keep
DETACH DELETE e
RETURN count(*) AS pruned;
