// The first statement of every ingest transaction: takes the space's write lock (setting and
// removing a property on its Space node leaves the node as it was, but holds the lock until
// the transaction ends). Writers of one space so commit one after another, and what a layer
// reads inside its transaction (which arguments the space holds) is what the writers before
// it committed. Writers of other spaces are not held. Params: $space.
MERGE (sp:Space {id: $space})
SET sp.writing = true
REMOVE sp.writing
RETURN sp.id AS space;
