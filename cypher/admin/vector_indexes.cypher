// graphmem's vector indexes and the dimension each was created with (checked against the
// embedder at start).
SHOW VECTOR INDEXES YIELD name, options
WHERE name IN ['turn_embedding', 'edu_embedding', 'argument_embedding', 'event_embedding',
               'boundary_embedding', 'unit_embedding', 'scene_embedding',
               'profile_embedding', 'episode_embedding']
RETURN name, options.indexConfig['vector.dimensions'] AS dimensions
ORDER BY name;
