// Record on each written session which layers it holds: those just written, plus those it
// held before. Strategies check this before they search. Params: $space, $session_ids,
// $layers (written now), $known (every layer name, in registry order: the stored order).
MATCH (s:Session {space: $space})
WHERE s.id IN $session_ids
SET s.layers = [name IN $known WHERE name IN $layers OR name IN coalesce(s.layers, [])]
RETURN count(s) AS sessions;
