// The characters of a space that one conversation has: every speaker (linked to its Speaker
// node) and every person mentioned, with the names the conversation also calls a speaker
// by (its aliases, on both nodes; recomputed from the whole conversation each time).
// Params: $space, $characters (list of {id, key, name, aliases, speaker_id: null for a
// person only mentioned}).
UNWIND $characters AS row
MERGE (ch:Character {id: row.id})
  ON CREATE SET ch.space = $space, ch.key = row.key, ch.name = row.name
SET ch.aliases = row.aliases
WITH ch, row
CALL (ch, row) {
  MATCH (sp:Speaker {id: row.speaker_id, space: $space})
  MERGE (ch)-[:SPEAKS_AS]->(sp)
  SET sp.aliases = row.aliases
}
RETURN count(ch) AS characters;
