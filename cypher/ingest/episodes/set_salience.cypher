// EMA: every turn keeps its MemDecider score as `salience` (admitted or not; raw turns are
// never dropped, and any strategy may use the score). Params: $space, $rows ({id, salience}).
UNWIND $rows AS row
MATCH (t:Turn {id: row.id, space: $space})
SET t.salience = row.salience
RETURN count(t) AS scored;
