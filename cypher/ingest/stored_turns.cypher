// Which of the given turn ids are stored, in any session: the ids a live add generates for
// messages without one must not be one of them. Params: $ids (turn ids; each names its
// space and conversation).
UNWIND $ids AS id
MATCH (t:Turn {id: id})
RETURN collect(t.id) AS stored;
