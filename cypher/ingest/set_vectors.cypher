// The vectors the layers computed for their nodes, each with the hash of the text it embeds
// (a later run embeds again only what changed); a vector `graphmem reembed` staged beside it
// goes. One statement for every embedded label of graphmem's layers: the label union is read
// through each label's id index. Params: $space, $rows (list of {id, embedding,
// embedded_hash}).
UNWIND $rows AS row
MATCH (n:Turn|EDU|Argument|Event|Boundary|RetrievalUnit|Scene|Profile|Episode {id: row.id})
WHERE n.space = $space
CALL db.create.setNodeVectorProperty(n, 'embedding', row.embedding)
SET n.embedded_hash = row.embedded_hash
REMOVE n.embedding_next, n.embedded_hash_next
RETURN count(n) AS embedded;
