"""What the write path reads: input files (graphmem's chat JSON, LoCoMo, LongMemEval, JSON
lines) parsed into checked conversation records, every error naming its place.

- ``loaders``: formats and :func:`parse_file`;
- ``jsonl``: one message per line;
- ``reading``: files read within a size limit;
- ``fields``: the checks every record and message passes (also for live messages).
"""

from graphmem.ingest.inputs.loaders import FORMATS, BadTurnPolicy, Format, ParseResult, parse_file

__all__ = ["FORMATS", "BadTurnPolicy", "Format", "ParseResult", "parse_file"]
