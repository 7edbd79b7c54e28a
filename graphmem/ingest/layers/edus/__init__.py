"""EMem's layer (seed 001): elementary discourse units (EDUs), their arguments and the synonym
edges between arguments, each EDU linked to the turns it came from.

- ``extract``: a session's EDUs, by the LLM or by rules over spaCy's parse;
- ``layer``: ids, synonym pairs, and the layer that writes them.
"""

from graphmem.ingest.layers.edus.layer import EduLayer, Edus, argument_id, edu_id

__all__ = ["EduLayer", "Edus", "argument_id", "edu_id"]
