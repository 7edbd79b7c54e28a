// What names one space's PPR projection: the space's revision (new with every change of the
// space, so a projection is never used after what it was made from changed) and whether the
// space holds any EDU to project. Params: $space.
OPTIONAL MATCH (sp:Space {id: $space})
RETURN sp.revision AS revision, COUNT { MATCH (:EDU {space: $space}) } AS edus;
