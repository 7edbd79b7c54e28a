// Remove the scenes and profiles of a conversation that the latest ingest no longer writes
// (a session was appended and a scene grew, or the scene settings changed).
// Params: $space, $conversation_id, $scenes (ids kept), $profiles (ids kept).
CALL (*) {
  MATCH (sc:Scene {space: $space, conversation_id: $conversation_id})
  WHERE NOT sc.id IN $scenes
  DETACH DELETE sc
  RETURN count(*) AS scenes
}
CALL (*) {
  MATCH (p:Profile {space: $space, conversation_id: $conversation_id})
  WHERE NOT p.id IN $profiles
  DETACH DELETE p
  RETURN count(*) AS profiles
}
RETURN scenes, profiles;
