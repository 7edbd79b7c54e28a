// Cosine indexes of $dimensions-dimensional embeddings (GRAPHMEM_EMBEDDING_DIMENSIONS: 384 for
// all-MiniLM-L6-v2). In Neo4j Browser, set it first: :param dimensions => 384
CREATE VECTOR INDEX turn_embedding IF NOT EXISTS
FOR (n:Turn) ON (n.embedding)
OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}};
CREATE VECTOR INDEX edu_embedding IF NOT EXISTS
FOR (n:EDU) ON (n.embedding)
OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}};
CREATE VECTOR INDEX argument_embedding IF NOT EXISTS
FOR (n:Argument) ON (n.embedding)
OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}};
CREATE VECTOR INDEX event_embedding IF NOT EXISTS
FOR (n:Event) ON (n.embedding)
OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}};
CREATE VECTOR INDEX boundary_embedding IF NOT EXISTS
FOR (n:Boundary) ON (n.embedding)
OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}};
CREATE VECTOR INDEX unit_embedding IF NOT EXISTS
FOR (n:RetrievalUnit) ON (n.embedding)
OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}};
CREATE VECTOR INDEX scene_embedding IF NOT EXISTS
FOR (n:Scene) ON (n.embedding)
OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}};
CREATE VECTOR INDEX profile_embedding IF NOT EXISTS
FOR (n:Profile) ON (n.embedding)
OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}};
CREATE VECTOR INDEX episode_embedding IF NOT EXISTS
FOR (n:Episode) ON (n.embedding)
OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}};
