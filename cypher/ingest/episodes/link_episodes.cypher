// The links among one conversation's episodic units, written anew: RELATED {score} (similar
// and sharing a participant or tag), SUPERSEDED_BY (a later unit replaces the fact; the older
// stays), MERGED_INTO (a near-duplicate found by a reorganisation). Then the count of links and
// updates since the last reorganisation. Params: $space, $conversation_id, $related ({a, b,
// score}), $superseded ({old, new}), $merged ({dup, into}), $operations, $reorganised (bool).
CALL (*) {
  MATCH (:Episode {space: $space, conversation_id: $conversation_id})
        -[r:RELATED|SUPERSEDED_BY|MERGED_INTO]->()
  DELETE r
}
CALL (*) {
  UNWIND $related AS row
  MATCH (a:Episode {id: row.a, space: $space}), (b:Episode {id: row.b, space: $space})
  MERGE (a)-[r:RELATED]->(b)
  SET r.score = row.score
}
CALL (*) {
  UNWIND $superseded AS row
  MATCH (old:Episode {id: row.old, space: $space}), (new:Episode {id: row.new, space: $space})
  MERGE (old)-[:SUPERSEDED_BY]->(new)
}
CALL (*) {
  UNWIND $merged AS row
  MATCH (dup:Episode {id: row.dup, space: $space}), (keep:Episode {id: row.into, space: $space})
  MERGE (dup)-[:MERGED_INTO]->(keep)
}
MATCH (c:Conversation {id: $conversation_id, space: $space})
SET c.episode_operations = $operations,
    c.reorganised_at = CASE WHEN $reorganised THEN datetime() ELSE c.reorganised_at END
RETURN c.episode_operations AS operations;
