// Every index of the database by name and type, the ones backing a constraint included (they
// bear its name): what a compaction must find among graphmem's own before it drops the store
// (the token lookup indexes every database has are not a user's).
SHOW INDEXES YIELD name, type, owningConstraint
RETURN name, type, owningConstraint IS NOT NULL AS constraint
ORDER BY name;
