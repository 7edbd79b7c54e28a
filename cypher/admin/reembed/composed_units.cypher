// The nodes of one label in one space whose vector is the mean of their turns' vectors (a
// CAST scene), each with the hash of the vector it holds and the key (elementId) and vector
// hash of every turn it comes from, so `graphmem reembed` can tell which ones to make again
// from their turns' new vectors. Params: $space, $kind (the label in lower case: 'scene').
MATCH (t:Turn {space: $space})<-[:FROM_TURN]-(n)
WHERE n.space = $space AND n.embedding IS NOT NULL
  AND $kind IN [label IN labels(n) | toLower(label)]
WITH n, collect(elementId(t)) AS turn_keys, collect(t.embedded_hash) AS turn_hashes
RETURN elementId(n) AS key, n.id AS id, n.embedded_hash AS hash,
       n.embedded_hash_next AS staged, turn_keys, turn_hashes
ORDER BY id;
