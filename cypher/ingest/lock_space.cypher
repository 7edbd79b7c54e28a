// The first statement of every transaction that changes a space (ingest, live messages,
// derived layers, layers added, restores): takes the space's write lock and gives the space a
// new random revision. Writing the Space node holds its lock until the transaction ends, so
// writers of one space commit one after another and what a layer reads inside its
// transaction is what the writers before it committed; writers of other spaces are not held.
// An existing Space node is matched (no lock) and then written, which takes its exclusive
// lock at once: a MERGE would first take a shared lock, and two writers that both hold one
// and both wait to write deadlock (Neo4j ends one, the driver retries it a second later).
// Only the first writer of a new space MERGEs it.
// Every client-side cache of a space and every GDS projection of it is keyed on the revision,
// so whatever changed (one word of one turn, a rewritten salience, a whole restore) is seen
// by the next search of any process. The space also keeps the name of the embedder its vectors
// come from: the first writer that embeds ($embedder; null for writers that embed nothing)
// names it, and every later one is checked against it, so one space never mixes the vectors of
// two models (`graphmem reembed` moves a space to another). `existed`: whether the space was
// there before this statement (a restore refuses to overwrite one unless asked to). Run by
// GraphStore.change alone, the one door for changing a space. Params: $space, $embedder.
OPTIONAL MATCH (before:Space {id: $space})
CALL (before) {
  WITH before WHERE before IS NOT NULL
  SET before.revision = randomUUID()
  RETURN before AS sp, true AS existed
  UNION ALL
  WITH before WHERE before IS NULL
  MERGE (sp:Space {id: $space})
  RETURN sp, sp.revision IS NOT NULL AS existed // made meanwhile by another writer
}
SET sp.revision = randomUUID(), sp.changed_at = datetime()
SET sp.embedder = coalesce(sp.embedder, $embedder)
RETURN sp.id AS space, sp.revision AS revision, sp.embedder AS embedder, existed;
