// One space's conversations, their sessions (captioned by date) and their speakers.
// Params: $space.
MATCH (sp:Space {id: $space})-[h:HAS_CONVERSATION]->(c:Conversation)
OPTIONAL MATCH (c)-[hs:HAS_SESSION]->(s:Session)
OPTIONAL MATCH (c)-[hp:HAS_SPEAKER]->(p:Speaker)
RETURN sp, h, c, hs, s, hp, p;
