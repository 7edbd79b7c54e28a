// ES-Mem boundaries of one conversation: one per event, describing how the conversation got
// there; linked to the event it opens and to the turns around the cut.
// Params: $space, $boundaries (list of {id, conversation_id, opens, kind, name, description,
// p_eb, source_turn_ids}).
UNWIND $boundaries AS row
MATCH (opened:Event {id: row.opens, space: $space})
MERGE (b:Boundary {id: row.id})
  ON CREATE SET b.space = $space
SET b.conversation_id = row.conversation_id, b.kind = row.kind, b.name = row.name,
    b.description = row.description, b.p_eb = row.p_eb
MERGE (b)-[:OPENS]->(opened)
WITH b, row
OPTIONAL MATCH (b)-[stale:FROM_TURN]->(old:Turn)
WHERE NOT old.id IN row.source_turn_ids
DELETE stale
WITH DISTINCT b, row
UNWIND row.source_turn_ids AS turn_id
MATCH (t:Turn {id: turn_id, space: $space})
MERGE (b)-[:FROM_TURN]->(t)
RETURN count(DISTINCT b) AS boundaries;
