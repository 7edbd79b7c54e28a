// A background derivation asks, inside its write transaction, whether what it computed may
// still be written. It read the conversation's node $node at live version $version and erase
// version $erased. Messages added since then do not stop it: its layers describe an earlier state,
// and the work those messages left stays pending for the next round. Three things do stop it,
// and then it writes nothing:
//   'gone'      the conversation was deleted, or replaced by another node (a restore);
//   'erased'    a forget or a correction came after the read;
//   'overtaken' a derivation that read a later state (or another round that read the same
//               one) has already written, and must not be replaced by an older one.
// Otherwise the conversation records this round ($round) and its version, and the answer is
// 'claimed'. Params: $space, $conversation_id, $node, $version, $erased, $round.
OPTIONAL MATCH (c:Conversation {id: $conversation_id, space: $space})
WHERE elementId(c) = $node
WITH c,
     CASE
       WHEN c IS NULL THEN 'gone'
       WHEN coalesce(c.erase_version, 0) <> $erased THEN 'erased'
       WHEN c.derived_version > $version
            OR (c.derived_version = $version AND c.derived_round <> $round) THEN 'overtaken'
       ELSE 'claimed'
     END AS status
CALL (c, status) {
  WITH c WHERE status = 'claimed'
  SET c.derived_version = $version, c.derived_round = $round
}
RETURN status;
