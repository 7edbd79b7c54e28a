// Nodes that belong to no space: neither a Space, nor a node whose space property names one,
// nor one of graphmem's projection records. A backup of every space does not hold them, so a
// compaction would erase them (it refuses while any exist). The count by label sets.
MATCH (n)
WHERE NOT n:Space AND NOT n:Projection
  AND NOT EXISTS { MATCH (s:Space) WHERE s.id = n.space }
RETURN labels(n) AS labels, count(*) AS nodes
ORDER BY nodes DESC, labels;
