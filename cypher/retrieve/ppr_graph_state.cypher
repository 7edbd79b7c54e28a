// A fingerprint of one space's EDU-argument graph: a projection made from the same counts is
// reused. Params: $space.
MATCH (e:EDU {space: $space})
WITH count(e) AS edus
OPTIONAL MATCH (a:Argument {space: $space})
WITH edus, count(a) AS arguments
OPTIONAL MATCH (:EDU {space: $space})-[r:HAS_ARGUMENT]->(:Argument)
WITH edus, arguments, count(r) AS links
OPTIONAL MATCH (:Argument {space: $space})-[s:SYNONYM]->(:Argument)
RETURN edus, arguments, links, count(s) AS synonyms;
