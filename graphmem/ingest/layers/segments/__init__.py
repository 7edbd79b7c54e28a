"""MMS's layer (seed 002): per dialogue round, a retrieval unit (what is searched) and a
context unit (what is shown), built from keywords, perspectives and the round's statements.

- ``perspectives``: who, where, when and what a sentence is about (spaCy, LLM-free);
- ``units``: the memory segments of a session;
- ``layer``: ids and the layer that writes them.
"""

from graphmem.ingest.layers.segments.layer import SegmentLayer, unit_id

__all__ = ["SegmentLayer", "unit_id"]
