"""The write path.

- ``inputs/``: input files parsed into checked conversation records;
- ``layers/``: the registry of layers (its ``__init__``) and a module or package per layer
  (``turns``, ``edus``, ``events``, ``segments``, ``scenes``, ``episodes``);
- the machinery every layer runs in: ``layer`` (the base class, a job, its context),
  ``writer`` (one transaction per conversation), ``parallel`` (worker processes), ``live`` and
  ``live_writer`` (messages as they come, derived layers catching up), ``stored``
  (conversations read back for ``layers add``), ``embedding_rows`` and ``ids``.
"""

from graphmem.ids import check_space
from graphmem.ingest.inputs import FORMATS, ParseResult, parse_file
from graphmem.ingest.writer import GraphWriter
from graphmem.models import IngestReport

__all__ = ["FORMATS", "GraphWriter", "IngestReport", "ParseResult", "check_space", "parse_file"]
