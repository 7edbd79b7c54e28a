// Strategy `graphmem`: the vectors of the turns appended to one space since a reader read its
// vectors: those the space's list of appended turns holds from position $from on, while the
// space is still in epoch $epoch (`ingest/note_appends`); no row otherwise, and the reader then
// reads the vectors as `retrieve/space_vectors` gives them. Each turn as
// [id, embedded_hash, embedding]; `appended`: the size of the list as read.
// Params: $space, $epoch, $from.
MATCH (sp:Space {id: $space})
WHERE sp.epoch = $epoch AND size(sp.appended) >= $from
CALL (sp) {
  UNWIND sp.appended[$from..] AS id
  MATCH (:Session)-[:HAS_TURN]->(t:Turn {id: id})
  WHERE t.space = $space AND t.embedding IS NOT NULL
  RETURN collect([t.id, t.embedded_hash, t.embedding]) AS turns
}
RETURN size(sp.appended) AS appended, turns;
