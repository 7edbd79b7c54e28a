"""EMA's layer (seed 003): MemDecider's salience of each turn, the episodic units it admits,
and the links between units (related, superseded, merged).

- ``memdecider``: the shipped admission model (``memdecider.npz``, its metrics in
  ``memdecider.json``; trained by ``graphmem eval train-memdecider``, see
  :mod:`graphmem.training.memdecider`);
- ``units``: episodic units and their links, LLM-free;
- ``layer``: the layer that writes them.
"""

from graphmem.ingest.layers.episodes.layer import EpisodeLayer
from graphmem.ingest.layers.episodes.memdecider import METRICS_PATH, MODEL_PATH

__all__ = ["METRICS_PATH", "MODEL_PATH", "EpisodeLayer"]
