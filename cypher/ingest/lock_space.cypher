// The first statement of every transaction that changes a space (ingest, live messages,
// derived layers, layers added, restores): takes the space's write lock and gives the space a
// new random revision. Writing the Space node holds its lock until the transaction ends, so
// writers of one space commit one after another and what a layer reads inside its
// transaction is what the writers before it committed; writers of other spaces are not held.
// Every client-side cache of a space and every GDS projection of it is keyed on the revision,
// so whatever changed (one word of one turn, a rewritten salience, a whole restore) is seen
// by the next search of any process. Params: $space.
MERGE (sp:Space {id: $space})
SET sp.revision = randomUUID(), sp.changed_at = datetime()
RETURN sp.id AS space, sp.revision AS revision;
