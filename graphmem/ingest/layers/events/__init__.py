"""ES-Mem's layer (seed 000): events found by segmenting each session at topic boundaries,
the boundaries themselves, and the chain of events, each linked to its turns.

- ``topics``: a turn's topic line and keywords (Stage 1, LLM-free);
- ``segmentation``: candidate cuts and the two-stage segmenter;
- ``boundary_model``: the shipped logistic Stage 2 (``boundary_model.json``, trained by
  ``graphmem eval calibrate-segmenter``, see :mod:`graphmem.training.segmenter`);
- ``layer``: ids, summaries and the layer that writes them.
"""

from graphmem.ingest.layers.events.boundary_model import FEATURES, MODEL_PATH
from graphmem.ingest.layers.events.layer import EventLayer, event_id
from graphmem.ingest.layers.events.segmentation import SegmentationConfig, segment

__all__ = ["FEATURES", "MODEL_PATH", "EventLayer", "SegmentationConfig", "event_id", "segment"]
