// Remove the episodic units of a conversation that the latest ingest no longer writes (the
// admission threshold or the model changed), with their links.
// Params: $space, $conversation_id, $keep (ids of the units written).
MATCH (e:Episode {space: $space, conversation_id: $conversation_id})
WHERE NOT e.id IN $keep
DETACH DELETE e
RETURN count(*) AS pruned;
