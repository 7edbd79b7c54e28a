"""The write path: parsing inputs, (later) segmentation, extraction, admission, graph writing."""

from graphmem.ingest.ids import check_space
from graphmem.ingest.loaders import FORMATS, ParseResult, parse_file
from graphmem.ingest.writer import GraphWriter, IngestReport

__all__ = ["FORMATS", "GraphWriter", "IngestReport", "ParseResult", "check_space", "parse_file"]
