"""The write path.

- ``inputs/``: input files parsed into checked conversation records;
- ``layers/``: the registry of layers (its ``__init__``) and a module or package per layer
  (``turns``, ``edus``, ``events``, ``segments``, ``scenes``, ``episodes``);
- the machinery every layer runs in: ``layer`` (the base class, a job, its context),
  ``writer`` (one transaction per conversation), ``parallel`` (worker processes), ``live``,
  ``live_writer`` and ``live_group`` (messages as they come, adds queued behind one
  conversation written together, derived layers catching up), ``stored``
  (conversations read back for ``layers add``), ``embedding_rows`` and ``ids``.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from graphmem.ids import check_space
    from graphmem.ingest.inputs import FORMATS, ParseResult, parse_file
    from graphmem.ingest.writer import GraphWriter
    from graphmem.models import IngestReport

__all__ = ["FORMATS", "GraphWriter", "IngestReport", "ParseResult", "check_space", "parse_file"]

# where each public name lives: importing the package stays cheap (a command line that only
# searches, or names the input formats, never loads the writer and its layers)
_HOME = {"FORMATS": "graphmem.ingest.inputs", "ParseResult": "graphmem.ingest.inputs",
         "parse_file": "graphmem.ingest.inputs", "GraphWriter": "graphmem.ingest.writer",
         "IngestReport": "graphmem.models", "check_space": "graphmem.ids"}


def __getattr__(name: str) -> Any:
    if name not in _HOME:
        raise AttributeError(f"module 'graphmem.ingest' has no attribute {name!r}")
    return getattr(import_module(_HOME[name]), name)
