// What the stored vectors of some nodes embed: the hash of each one's text and model, so a
// layer embeds again only what changed (graphmem/ingest/layer.py, Layer.embed_changed). One
// statement for every embedded label of graphmem's layers, read through each label's id index,
// as ingest/set_vectors writes them. Params: $space, $ids.
UNWIND $ids AS id
MATCH (n:Turn|EDU|Argument|Event|Boundary|RetrievalUnit|Scene|Profile|Episode {id: id})
WHERE n.space = $space AND n.embedding IS NOT NULL
RETURN n.id AS id, n.embedded_hash AS embedded_hash;
