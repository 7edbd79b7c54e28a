"""What every study starts with: the benchmarks' helpers (``benchmarks/common.py``: where the
repository and the development data are, the parser whose ``--help`` opens with the script's
docstring, ``publish``), and the benchmarks' folder on the import path, since several studies
build on a benchmark's loader of labelled candidates (``ranker_transfer.samples``)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
sys.path.append(str(BENCHMARKS))


def _benchmarks_common() -> Any:
    spec = importlib.util.spec_from_file_location("benchmarks_common", BENCHMARKS / "common.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_shared = _benchmarks_common()
ROOT: Path = _shared.ROOT
DATA: Path = _shared.DATA
LOCOMO: Path = _shared.LOCOMO
make_parser = _shared.make_parser
publish = _shared.publish
