"""CAST's layer (seed 004): characters, scenes grouped by time, place and topic, and each
character's profile over its scenes.

- ``views``: a turn seen with its window (time, place, participants, topic);
- ``grouping``: views aggregated into scenes;
- ``layer``: ids and the layer that writes them. The name and place keys the read path also
  uses live in :mod:`graphmem.text`.
"""

from graphmem.ingest.layers.scenes.layer import SceneLayer, character_id

__all__ = ["SceneLayer", "character_id"]
