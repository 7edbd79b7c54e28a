// One node and what touches it: a message's session, speaker, neighbours and everything the
// layers derived from it, or a derived unit's turns and its own links (arguments, next event,
// scene, episode...). Only nodes of the same space are drawn. The console's "Neo4j Browser"
// link opens this query with its first line naming the unit; by hand, set both parameters
// (:param id => '...', the id a search hit or `graphmem show` gives). Params: $space, $id.
WITH $space AS space, $id AS id
MATCH (n:Turn|EDU|Argument|Event|Boundary|RetrievalUnit|ContextUnit|Character|Scene|Profile
       |Episode|Session|Speaker|Conversation {id: id})
WHERE n.space = space
OPTIONAL MATCH (n)-[r]-(m)
WHERE m.space = space
RETURN n, r, m
LIMIT 200;
