"""Stems remembered on disk: a new process stems the words some process stemmed before without
importing NLTK, and gets NLTK's stems; the file survives a second writer and a bad file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

WORDS = ["adopted", "greyhounds", "running", "skies", "dying", "keys", "computationally"]

STEM = """
import json, sys
if sys.argv[1] == "blocked":
    sys.modules["nltk"] = None  # importing it fails
from graphmem.retrieve.fused.space_index import tokenize
print(json.dumps(tokenize(json.loads(sys.argv[2]), ids=False)))
print("nltk" in sys.modules and sys.modules["nltk"] is not None)
"""


def run(home: Path, mode: str, texts: list[str]) -> tuple[list[list[str]], bool]:
    done = subprocess.run([sys.executable, "-c", STEM, mode, json.dumps(texts)],
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "GRAPHMEM_HOME": str(home)})
    assert done.returncode == 0, done.stderr[-2000:]
    tokens, loaded = done.stdout.strip().splitlines()
    return json.loads(tokens), loaded == "True"


def test_a_new_process_stems_known_words_without_nltk(tmp_path: Path) -> None:
    from nltk.stem.porter import PorterStemmer

    texts = [" ".join(WORDS), "Maya adopted two greyhounds"]
    first, loaded = run(tmp_path, "free", texts)
    assert loaded  # nothing on disk yet: NLTK stems them
    porter = PorterStemmer()
    assert first[0] == [porter.stem(w) for w in WORDS]
    [stems] = (tmp_path / "cache" / "stems").glob("porter-nltk-*.json")
    assert json.loads(stems.read_text())["computationally"] == porter.stem("computationally")
    again, loaded = run(tmp_path, "blocked", texts)
    assert again == first and not loaded  # the same tokens, NLTK never imported
    # another process adds its words to the file, keeping the ones there
    run(tmp_path, "free", ["hiking in Bristol"])
    known = json.loads(stems.read_text())
    assert {"hiking", "bristol", "greyhounds"} <= set(known)
    stems.write_text("{not json")  # a damaged file is made again
    third, _ = run(tmp_path, "free", texts)
    assert third == first and json.loads(stems.read_text())
