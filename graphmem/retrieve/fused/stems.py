"""Porter stems remembered on disk, so that a new process searches without loading NLTK.

Importing NLTK's stemmer imports all of NLTK (SciPy's statistics among it): about a second
of a new process's first search, for a function whose answers never change. So every word
stemmed is kept in ``GRAPHMEM_HOME/cache/stems/porter-nltk-<version>.json`` (a word → stem
map, a file per NLTK version because its stemmer may change), and NLTK loads only for a word
no process of this user has stemmed before. The stems are NLTK's own, so searches are the
same either way (``tests/unit/test_stems.py``).
"""

from __future__ import annotations

import atexit
import json
import os
import threading
from functools import lru_cache
from importlib.metadata import version
from pathlib import Path
from typing import Any

KEPT_ON_DISK = 300_000  # words; past it, new words are stemmed but not written
SAVE_AFTER = 500  # new words held before the file is written again (and at exit)


class StemFile:
    """NLTK's Porter stems of the words seen so far, read from and written to one file."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.known: dict[str, str] = {}
        self.new: dict[str, str] = {}
        self._lock = threading.Lock()
        try:
            self.known = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            self.known = {}  # none yet, or unreadable: made again as words come

    def stem(self, word: str) -> str:
        found = self.known.get(word)
        if found is not None:
            return found
        made = str(_porter().stem(word))
        with self._lock:
            if len(self.known) < KEPT_ON_DISK:
                self.known[word] = made
                self.new[word] = made
                if len(self.new) >= SAVE_AFTER:
                    self._save()
        return made

    def save(self) -> None:
        with self._lock:
            self._save()

    def _save(self) -> None:
        if not self.new:
            return
        try:
            on_disk = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            on_disk = {}
        merged = {**on_disk, **self.new}  # another process may have written meanwhile
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            partial = self.path.with_name(f"{self.path.name}.{os.getpid()}.partial")
            partial.write_text(json.dumps(merged, ensure_ascii=False), encoding="utf-8")
            os.replace(partial, self.path)
        except OSError:
            return  # a read-only home only costs the next process NLTK's import
        self.new = {}


@lru_cache(maxsize=1)
def stem_file() -> StemFile:
    from graphmem.config import Settings

    name = f"porter-nltk-{version('nltk')}.json"
    stems = StemFile(Settings().cache_dir / "stems" / name)
    atexit.register(stems.save)
    return stems


@lru_cache(maxsize=1)
def _porter() -> Any:
    from nltk.stem.porter import PorterStemmer

    return PorterStemmer()
