// MMS's layer: the rounds of the first session, each a retrieval unit (what a search matches)
// showing one context unit (what an answer sees), both drawn to the turns of the round.
// Click a unit to read its keywords, perspectives, events or facts. Params: $space.
MATCH (s:Session {space: $space})
WITH s ORDER BY s.started_at, s.index LIMIT 1
MATCH (s)-[hu:HAS_UNIT]->(r:RetrievalUnit)-[sh:SHOWS]->(c:ContextUnit)
MATCH (r)-[ft:FROM_TURN]->(t:Turn)
RETURN s, hu, r, sh, c, ft, t;
