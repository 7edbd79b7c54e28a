// Drop the links of the given EDUs to arguments they no longer mention (their text changed),
// before the current links are merged. Params: $space, $edu_ids, $links (list of
// {edu_id, argument_id}: every current link of those EDUs).
MATCH (e:EDU {space: $space})-[old:HAS_ARGUMENT]->(a:Argument)
WHERE e.id IN $edu_ids AND NOT {edu_id: e.id, argument_id: a.id} IN $links
DELETE old
RETURN count(old) AS dropped;
