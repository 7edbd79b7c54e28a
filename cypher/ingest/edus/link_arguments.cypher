// Which EDUs mention which arguments. Params: $space, $links (list of {edu_id, argument_id}).
UNWIND $links AS link
MATCH (e:EDU {id: link.edu_id, space: $space})
MATCH (a:Argument {id: link.argument_id, space: $space})
MERGE (e)-[:HAS_ARGUMENT]->(a)
RETURN count(*) AS links;
