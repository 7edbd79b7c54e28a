// Every node carries the id of its space (tenant); reads always filter on it.
CREATE INDEX conversation_space IF NOT EXISTS FOR (n:Conversation) ON (n.space);
CREATE INDEX session_space IF NOT EXISTS FOR (n:Session) ON (n.space);
CREATE INDEX session_started_at IF NOT EXISTS FOR (n:Session) ON (n.started_at);
CREATE INDEX turn_space IF NOT EXISTS FOR (n:Turn) ON (n.space);
CREATE INDEX turn_source_id IF NOT EXISTS FOR (n:Turn) ON (n.space, n.source_id);
CREATE INDEX speaker_space IF NOT EXISTS FOR (n:Speaker) ON (n.space);
CREATE INDEX edu_space IF NOT EXISTS FOR (n:EDU) ON (n.space);
CREATE INDEX edu_conversation IF NOT EXISTS FOR (n:EDU) ON (n.space, n.conversation_id);
CREATE INDEX argument_space IF NOT EXISTS FOR (n:Argument) ON (n.space);
CREATE INDEX event_space IF NOT EXISTS FOR (n:Event) ON (n.space);
CREATE INDEX event_chain IF NOT EXISTS FOR (n:Event) ON (n.conversation_id, n.seq);
CREATE INDEX boundary_space IF NOT EXISTS FOR (n:Boundary) ON (n.space);
CREATE INDEX boundary_conversation IF NOT EXISTS FOR (n:Boundary) ON (n.space, n.conversation_id);
CREATE INDEX retrieval_unit_space IF NOT EXISTS FOR (n:RetrievalUnit) ON (n.space);
CREATE INDEX retrieval_unit_conversation IF NOT EXISTS FOR (n:RetrievalUnit) ON (n.space, n.conversation_id);
CREATE INDEX context_unit_space IF NOT EXISTS FOR (n:ContextUnit) ON (n.space);
