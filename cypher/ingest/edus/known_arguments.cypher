// Which of the given arguments the space holds already (with an embedding), and how many it
// holds in all. Params: $space, $ids.
RETURN [id IN $ids WHERE EXISTS {
          MATCH (a:Argument {id: id}) WHERE a.space = $space AND a.embedding IS NOT NULL
        }] AS known,
       COUNT { MATCH (a:Argument {space: $space}) WHERE a.embedding IS NOT NULL } AS stored;
