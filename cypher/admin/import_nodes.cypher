// Create nodes from a backup file. The labels were checked against graphmem's own before
// this runs. Params: $rows, a list of {labels, props}; gives each row's position and key.
UNWIND range(0, size($rows) - 1) AS i
WITH i, $rows[i] AS row
CREATE (n:$(row.labels))
SET n = row.props
RETURN i, elementId(n) AS key
ORDER BY i;
