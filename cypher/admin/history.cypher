// A space's history, newest first. Params: $space, $limit.
MATCH (:Space {id: $space})-[:CHANGED]->(c:Change)
RETURN c.id AS id, c.at AS at, c.what AS what, c.surface AS surface, c.caller AS caller,
       c.revision AS revision, c.nodes_created AS nodes_created,
       c.nodes_deleted AS nodes_deleted, c.relationships_created AS relationships_created,
       c.relationships_deleted AS relationships_deleted, c.properties_set AS properties_set
ORDER BY at DESC, id
LIMIT $limit;
