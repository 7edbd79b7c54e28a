// Remember which message ids were forgotten, so that a history sent again (a framework's
// hook, a client replaying a thread) cannot store them back. Only a digest of each Turn id is
// kept, on the space's own node, never what was said; it goes with the space. With $refuse
// false the digests are taken off the list instead (the ids may be used again).
// Params: $space, $digests, $refuse.
MATCH (sp:Space {id: $space})
WITH sp, coalesce(sp.forgotten, []) AS known
SET sp.forgotten = CASE WHEN $refuse
                        THEN reduce(kept = known, d IN $digests |
                                    CASE WHEN d IN kept THEN kept ELSE kept + d END)
                        ELSE [d IN known WHERE NOT d IN $digests] END
RETURN size(sp.forgotten) AS forgotten;
