// The embedded nodes of one label in one space, with what their vector embeds and the
// hashes of the vector they hold and of the one staged beside it by `graphmem reembed`
// (null when none). The key (elementId) addresses the node in the writes that follow, within
// the same run. The text comes back as fields, which graphmem joins as ingestion did (a
// turn's line is speaker, text and image caption). Params: $space, $kind (the label in
// lower case: 'turn', 'edu', 'retrievalunit', ...). A scene's vector embeds no text: see
// `composed_units`.
CALL () {
  WITH 1 AS one WHERE $kind = 'turn'
  MATCH (n:Turn {space: $space}) WHERE n.embedding IS NOT NULL
  RETURN n, n {.speaker, .text, .image_caption} AS fields
  UNION ALL
  WITH 1 AS one WHERE $kind = 'edu'
  MATCH (n:EDU {space: $space}) WHERE n.embedding IS NOT NULL
  RETURN n, {text: n.text} AS fields
  UNION ALL
  WITH 1 AS one WHERE $kind = 'argument'
  MATCH (n:Argument {space: $space}) WHERE n.embedding IS NOT NULL
  RETURN n, {text: n.text} AS fields
  UNION ALL
  WITH 1 AS one WHERE $kind = 'event'
  MATCH (n:Event {space: $space}) WHERE n.embedding IS NOT NULL
  RETURN n, {text: n.summary} AS fields
  UNION ALL
  WITH 1 AS one WHERE $kind = 'boundary'
  MATCH (n:Boundary {space: $space}) WHERE n.embedding IS NOT NULL
  RETURN n, {text: n.description} AS fields
  UNION ALL
  WITH 1 AS one WHERE $kind = 'retrievalunit'
  MATCH (n:RetrievalUnit {space: $space}) WHERE n.embedding IS NOT NULL
  RETURN n, {text: n.text} AS fields
  UNION ALL
  WITH 1 AS one WHERE $kind = 'profile'
  MATCH (n:Profile {space: $space}) WHERE n.embedding IS NOT NULL
  RETURN n, {text: n.text} AS fields
  UNION ALL
  WITH 1 AS one WHERE $kind = 'episode'
  MATCH (n:Episode {space: $space}) WHERE n.embedding IS NOT NULL
  RETURN n, {text: n.representation} AS fields
}
RETURN elementId(n) AS key, n.id AS id, fields, n.embedded_hash AS hash,
       n.embedded_hash_next AS staged, size(n.embedding) AS dimensions
ORDER BY id;
