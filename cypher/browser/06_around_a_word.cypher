// Everything graphmem holds about one word: the turns that say it (BM25), their statements,
// arguments and event. Params: $space, $word (e.g. :param word => 'dog').
CALL db.index.fulltext.queryNodes('turn_text', $word) YIELD node, score
WHERE node.space = $space
WITH node AS t ORDER BY score DESC LIMIT 3
OPTIONAL MATCH (e:EDU)-[ft:FROM_TURN]->(t)
OPTIONAL MATCH (e)-[ha:HAS_ARGUMENT]->(a:Argument)
OPTIONAL MATCH (ev:Event)-[fe:FROM_TURN]->(t)
RETURN t, e, ft, a, ha, ev, fe;
