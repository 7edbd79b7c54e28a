// Create relationships from a backup file between nodes created by import_nodes in the same
// transaction. The types were checked against graphmem's own. Params: $rows, a list of
// {type, from, to, props} with from/to the keys import_nodes returned.
UNWIND $rows AS row
MATCH (a) WHERE elementId(a) = row.from
MATCH (b) WHERE elementId(b) = row.to
CREATE (a)-[r:$(row.type)]->(b)
SET r = row.props;
