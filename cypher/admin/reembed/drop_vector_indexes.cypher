// Drop graphmem's vector indexes, so that `schema/vector_indexes` creates them again with
// another dimension (after every space of the database holds vectors of that dimension).
DROP INDEX turn_embedding IF EXISTS;
DROP INDEX edu_embedding IF EXISTS;
DROP INDEX argument_embedding IF EXISTS;
DROP INDEX event_embedding IF EXISTS;
DROP INDEX boundary_embedding IF EXISTS;
DROP INDEX unit_embedding IF EXISTS;
DROP INDEX scene_embedding IF EXISTS;
DROP INDEX profile_embedding IF EXISTS;
DROP INDEX episode_embedding IF EXISTS;
