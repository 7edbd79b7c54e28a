// One entry of a space's history, written last in the transaction that changed the space:
// what kind of change (never what was said), when, through which surface and caller (a
// digest of a server's bearer token), the space's revision after it, and the counts of what
// the transaction created, deleted and set. Params: $space, $prefix (what the entry's id
// starts with, of the space's ids), $what, $surface, $caller, $counts.
MATCH (sp:Space {id: $space})
CREATE (c:Change {id: $prefix + randomUUID(), space: $space, at: datetime(),
                  what: $what, surface: $surface, caller: $caller, revision: sp.revision,
                  nodes_created: $counts.nodes_created, nodes_deleted: $counts.nodes_deleted,
                  relationships_created: $counts.relationships_created,
                  relationships_deleted: $counts.relationships_deleted,
                  properties_set: $counts.properties_set})
CREATE (sp)-[:CHANGED]->(c)
RETURN c.id AS id;
