// Every space with what it holds.
MATCH (sp:Space)
OPTIONAL MATCH (sp)-[:HAS_CONVERSATION]->(c:Conversation)
WITH sp, count(c) AS conversations
CALL (sp) {
  MATCH (s:Session {space: sp.id}) RETURN count(s) AS sessions
}
CALL (sp) {
  MATCH (t:Turn {space: sp.id}) RETURN count(t) AS turns
}
RETURN sp.id AS space, conversations, sessions, turns
ORDER BY space;
