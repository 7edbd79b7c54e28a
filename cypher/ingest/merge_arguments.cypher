// Arguments (shared entities and concepts) and which EDUs mention them. Links of the given
// EDUs to arguments they no longer mention are dropped. Params: $space, $arguments (list of
// {id, text}), $links (list of {edu_id, argument_id}), $edu_ids.
UNWIND $arguments AS row
MERGE (a:Argument {id: row.id})
  ON CREATE SET a.space = $space, a.text = row.text
WITH count(a) AS merged
OPTIONAL MATCH (e:EDU {space: $space})-[old:HAS_ARGUMENT]->(a:Argument)
WHERE e.id IN $edu_ids AND NOT {edu_id: e.id, argument_id: a.id} IN $links
DELETE old
WITH merged, count(old) AS dropped
UNWIND $links AS link
MATCH (e:EDU {id: link.edu_id, space: $space})
MATCH (a:Argument {id: link.argument_id, space: $space})
MERGE (e)-[:HAS_ARGUMENT]->(a)
RETURN merged, dropped, count(*) AS links;
