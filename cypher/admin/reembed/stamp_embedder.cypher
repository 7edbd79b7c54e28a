// Record which embedder made every vector of a space (after a re-embedding moved them all
// in, or a restore brought them back). Params: $space, $embedder.
MATCH (sp:Space {id: $space})
SET sp.embedder = $embedder
RETURN sp.embedder AS embedder;
