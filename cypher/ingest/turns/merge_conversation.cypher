// One conversation of a space, with its speakers. Params: $space, $conversation_id,
// $key, $source_format, $speakers (list of {id, name}).
MERGE (sp:Space {id: $space})
MERGE (c:Conversation {id: $conversation_id})
  ON CREATE SET c.space = $space, c.key = $key, c.source_format = $source_format
MERGE (sp)-[:HAS_CONVERSATION]->(c)
WITH sp, c
UNWIND $speakers AS row
MERGE (s:Speaker {id: row.id})
  ON CREATE SET s.space = $space, s.name = row.name
MERGE (c)-[:HAS_SPEAKER]->(s)
RETURN count(s) AS speakers;
