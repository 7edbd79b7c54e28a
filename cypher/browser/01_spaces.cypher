// Start here: every space with its conversations. Click a conversation, or set the space to
// walk with  :param space => 'demo'  and run the next queries in order.
MATCH (sp:Space)
OPTIONAL MATCH (sp)-[r:HAS_CONVERSATION]->(c:Conversation)
RETURN sp, r, c;
