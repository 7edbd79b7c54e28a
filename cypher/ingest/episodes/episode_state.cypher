// What the episodes layer (EMA) keeps between ingests of one conversation: its units with the
// representation they were embedded from and what they were merged into, the links and
// updates already stored, and the links and updates counted since the last reorganisation.
// Params: $space, $conversation_id.
OPTIONAL MATCH (c:Conversation {id: $conversation_id, space: $space})
RETURN coalesce(c.episode_operations, 0) AS operations, c.reorganised_at AS reorganised_at,
       COLLECT {
         MATCH (e:Episode {space: $space, conversation_id: $conversation_id})
         RETURN {id: e.id, representation: e.representation, embedded_hash: e.embedded_hash,
                 merged_into: e.merged_into}
       } AS units,
       COLLECT {
         MATCH (a:Episode {space: $space, conversation_id: $conversation_id})
               -[r:RELATED|SUPERSEDED_BY]->(b:Episode)
         RETURN {type: type(r), a: a.id, b: b.id}
       } AS edges;
