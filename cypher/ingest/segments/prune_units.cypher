// Remove the MMS units (both kinds) of the given sessions that the latest ingest no longer
// writes (a turn was removed, or the round size changed), so a re-ingest leaves exactly the
// current rounds. Params: $space, $session_ids, $keep (ids of the retrieval units written).
MATCH (s:Session {space: $space})-[:HAS_UNIT]->(r:RetrievalUnit)
WHERE s.id IN $session_ids AND NOT r.id IN $keep
OPTIONAL MATCH (r)-[:SHOWS]->(c:ContextUnit)
DETACH DELETE r, c
RETURN count(*) AS pruned;
