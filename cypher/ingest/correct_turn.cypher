// Correct what a stored message says: its text is replaced, the text it had is kept on the
// turn as a revision (with when it was replaced) unless $keep is false, and its vector and
// embedding hash (and any vector `graphmem reembed` staged) are cleared until its layers are
// derived again; corrected_at says when it last changed, kept or not. The message's payload
// goes too: it would still say what the message said before. Params: $space, $turn_id,
// $text, $keep.
MATCH (t:Turn {space: $space, id: $turn_id})
WITH t, t.text AS before
SET t.revisions = CASE WHEN $keep THEN coalesce(t.revisions, []) + [before]
                       ELSE [] END,
    t.revised_at = CASE WHEN $keep THEN coalesce(t.revised_at, []) + [datetime()]
                        ELSE [] END,
    t.text = $text, t.corrected_at = datetime()
REMOVE t.embedding, t.embedded_hash, t.embedding_next, t.embedded_hash_next, t.payload
RETURN t.conversation_id AS conversation_id, size(t.revisions) AS revisions;
