"""graphmem's own strategy (recipes `graphmem` and `graphmem-statements`) and its private
parts: every layer's candidates, one learned ranking, packing for the budget.

- ``strategy``: :class:`FusedSearch` and the packing and rendering of its hits;
- ``sources``: the table of candidate sources (graphmem's own and the plug-ins');
- ``candidates``: running them (the space's BM25 and dense search, each layer it holds);
- ``features`` and ``ranker``: what the ranker sees and the shipped ranker
  (``fusion_ranker.json`` with its LightGBM trees ``fusion_ranker.trees.txt``, trained by
  ``graphmem eval train-ranker``: :mod:`graphmem.training.ranker`);
- ``space_index`` and ``space_vectors``: a space's turn table, BM25 and vectors held in the
  client (in the ``Memory``'s caches, keyed by the space's revision);
- ``statements``: a turn's statement shown in its place when cheaper;
- ``explain``: why each shown turn was recalled and the best of the rest were not;
- ``pipeline`` and ``order``: the one pipeline a search and training run, and the order
  packing offers candidates in (a list's items spread over sessions, coverage by meaning).

Code outside this package uses what this ``__init__`` exports; only ``graphmem.training``
reaches further in.
"""

from graphmem.retrieve.fused.features import SOURCES
from graphmem.retrieve.fused.ranker import SHIPPED, load_ranker
from graphmem.retrieve.fused.sources import Source, register_source
from graphmem.retrieve.fused.strategy import FusedConfig, FusedSearch, warm_up

__all__ = ["SHIPPED", "SOURCES", "FusedConfig", "FusedSearch", "Source", "load_ranker",
           "register_source", "warm_up"]
