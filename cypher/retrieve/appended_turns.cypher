// The turns appended to one space since a reader read its table: those the space's list of
// appended turns holds from position $from on, while the space is still in epoch $epoch
// (`ingest/note_appends`); no row otherwise, and the reader then reads the table whole
// (`retrieve/space_turns`). Sessions as `retrieve/space_turns` gives them, each with its
// appended turns only, and `appended`: the size of the list as read.
// Params: $space, $epoch, $from.
MATCH (sp:Space {id: $space})
WHERE sp.epoch = $epoch AND size(sp.appended) >= $from
CALL (sp) {
  UNWIND sp.appended[$from..] AS id
  MATCH (s:Session)-[:HAS_TURN]->(t:Turn {id: id})
  WHERE t.space = $space
  WITH s, t ORDER BY t.order
  WITH s, collect([t.id, t.speaker, t.text, t.image_caption, t.source_id, t.order,
                   t.salience]) AS turns
  RETURN collect({session_id: s.id, session_index: s.index,
                  conversation_id: s.conversation_id, started_at: s.started_at,
                  date_text: s.date_text, turns: turns}) AS sessions
}
RETURN size(sp.appended) AS appended, sessions;
