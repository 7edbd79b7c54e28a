// Record on each written session which layers it holds: those just written, plus those it
// held before, the known ones in registry order; a layer this process does not know (a
// plug-in installed elsewhere) is kept after them, never dropped. Strategies check this
// before they search. Params: $space, $session_ids, $layers (written now), $known (every layer
// name this process knows, in registry order).
MATCH (s:Session {space: $space})
WHERE s.id IN $session_ids
WITH s, coalesce(s.layers, []) AS held
SET s.layers = [name IN $known WHERE name IN $layers OR name IN held]
               + [name IN held WHERE NOT name IN $known]
RETURN count(s) AS sessions;
