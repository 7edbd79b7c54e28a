// Whether a space exists (has ever been ingested into and not deleted). Params: $space.
OPTIONAL MATCH (sp:Space {id: $space})
RETURN sp IS NOT NULL AS exists;
