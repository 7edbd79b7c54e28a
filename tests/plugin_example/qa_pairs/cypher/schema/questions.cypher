CREATE CONSTRAINT question_id IF NOT EXISTS FOR (n:Question) REQUIRE n.id IS UNIQUE;
CREATE INDEX question_space IF NOT EXISTS FOR (n:Question) ON (n.space);
