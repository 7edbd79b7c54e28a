// Remember which message ids were forgotten, so that a history sent again (a framework's
// hook, a client replaying a thread) cannot store them back. Only a digest of each Turn id is
// kept, on the space's own node, never what was said; it goes with the space. With $refuse
// false the digests are taken off the list instead (the ids may be used again). $digests
// holds each id's digests, the one to keep first (keyed by GRAPHMEM_FORGET_KEY when it is set)
// then any older form a space may hold. Params: $space, $digests, $refuse.
MATCH (sp:Space {id: $space})
WITH sp, coalesce(sp.forgotten, []) AS known
SET sp.forgotten = CASE WHEN $refuse
                        THEN reduce(kept = known, ds IN $digests |
                                    CASE WHEN ds[0] IN kept THEN kept ELSE kept + ds[0] END)
                        ELSE [d IN known WHERE NOT any(ds IN $digests WHERE d IN ds)] END
RETURN size(sp.forgotten) AS forgotten;
