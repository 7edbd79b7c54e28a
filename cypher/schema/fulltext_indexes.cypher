// Lucene BM25 over what was said (English analyzer: lower case, stop words, stemming).
CREATE FULLTEXT INDEX turn_text IF NOT EXISTS
FOR (n:Turn) ON EACH [n.text, n.image_caption]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}};
CREATE FULLTEXT INDEX speaker_name IF NOT EXISTS
FOR (n:Speaker) ON EACH [n.name];
CREATE FULLTEXT INDEX unit_text IF NOT EXISTS
FOR (n:RetrievalUnit) ON EACH [n.text]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}};
