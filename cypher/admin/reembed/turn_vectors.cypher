// The vectors of some turns of one space, by key (elementId, as `composed_units` gives
// them): what a composed vector is averaged from. Params: $space, $keys (list of strings).
UNWIND $keys AS key
MATCH (t:Turn) WHERE elementId(t) = key AND t.space = $space AND t.embedding IS NOT NULL
RETURN key, t.embedding AS embedding;
