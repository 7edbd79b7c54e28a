// What a search or a new layer needs to know of one space, in one round trip: its revision
// (new with every change of the space: what client caches and GDS projections are keyed on),
// how many turns it holds and the whole database holds (to size vector-index candidate pools
// so that filtering to the space leaves enough), how many sessions it has, and for each layer
// asked about, how many of its sessions lack it and how many of its conversations wait for
// it (live messages, a forget or a correction left it pending: it is being derived), and the
// embedder its vectors come from; and the space's epoch and how many turns were appended in
// it (`ingest/note_appends`: what lets a reader read only those). Params: $space, $layers
// (names to check).
// COUNT subqueries always give a row, even in a database without a single turn.
WITH COUNT { MATCH (:Turn {space: $space}) } AS in_space, COUNT { MATCH (:Turn) } AS in_database
OPTIONAL MATCH (sp:Space {id: $space})
WITH in_space, in_database, sp.revision AS revision, sp.embedder AS embedder,
     sp.epoch AS epoch, size(coalesce(sp.appended, [])) AS appended
OPTIONAL MATCH (s:Session {space: $space})
WITH revision, embedder, epoch, appended, in_space, in_database, collect(s) AS found
WITH revision, embedder, epoch, appended, in_space, in_database, size(found) AS sessions,
     [x IN found | coalesce(x.layers, [])] AS held
OPTIONAL MATCH (c:Conversation {space: $space})
WITH revision, embedder, epoch, appended, in_space, in_database, sessions, held,
     collect(coalesce(c.pending_layers, [])) AS waiting
RETURN revision, embedder, epoch, appended, in_space, in_database, sessions,
       [layer IN $layers | {layer: layer, missing: size([h IN held WHERE NOT layer IN h]),
                            pending: size([w IN waiting WHERE layer IN w])}]
       AS layers;
