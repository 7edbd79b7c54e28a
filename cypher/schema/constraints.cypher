// Unique ids for every node family graphmem writes. Idempotent: safe to run again.
CREATE CONSTRAINT space_id IF NOT EXISTS FOR (n:Space) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT conversation_id IF NOT EXISTS FOR (n:Conversation) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT session_id IF NOT EXISTS FOR (n:Session) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT turn_id IF NOT EXISTS FOR (n:Turn) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT speaker_id IF NOT EXISTS FOR (n:Speaker) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT edu_id IF NOT EXISTS FOR (n:EDU) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT argument_id IF NOT EXISTS FOR (n:Argument) REQUIRE n.id IS UNIQUE;
