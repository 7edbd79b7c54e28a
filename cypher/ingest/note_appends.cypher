// Run by GraphStore.change after every change of a space, once its history is recorded: what a
// reader that holds the space's turn table needs in order to bring it up to date without
// reading it whole. A change that only appended turns (a live add that wrote the turns layer
// and nothing else) adds their ids to the space's list of appended turns. Any other change
// starts a new epoch with an empty list, and so does an append that would make the list longer
// than $most: a reader whose table belongs to an earlier epoch reads the table whole.
// Params: $space, $turn_ids (null when the change was not only an append), $most.
MATCH (sp:Space {id: $space})
WITH sp, $turn_ids IS NOT NULL AND sp.epoch IS NOT NULL
         AND size(coalesce(sp.appended, [])) + size($turn_ids) <= $most AS append
SET sp.epoch = CASE WHEN append THEN sp.epoch ELSE randomUUID() END,
    sp.appended = CASE WHEN append THEN sp.appended + $turn_ids ELSE [] END
RETURN sp.epoch AS epoch, size(sp.appended) AS appended;
