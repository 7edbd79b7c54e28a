"""Do a person's turns that name the same things tie a list's items together? (issue 51)

    python studies/argument_threads.py [--conversations 8] [--out argument_threads.json]

Session 29 (`thread_signal.py`) found that a speaker's nearest turns by vector carry nothing
a question's evidence shares: a list's scattered items are not each other's neighbours in
MiniLM's space. Issue 51's lever 1 names the other tie: what the turns are about, which
their nouns and names say. This asks it of the ranker on the leave-one-dataset-out matrix,
with the cached candidates of `train-ranker` (no re-ingest): each candidate's thread mates
are the other candidates said by the same speaker in another session that share a content
lemma with it (a noun or proper noun, not a stop word, not a name of the space's speakers),
each tie weighing the summed rarity (idf over the space's turns) of what they share. From
the mates, five columns are appended to the candidate's row:

- ``thread:mates``: how many (log),
- ``thread:tie``: the strongest tie's weight,
- ``thread:vector``: the best closeness to the question among the mates (the ``vector``
  source's score), and ``thread:support``: that closeness averaged with the tie weights,
- ``thread:bm25``: the best BM25 score among the mates.

A list question's items said by one person over weeks would lift each other if they share
what they are about ("the trip", "Patagonia", "the fjords" under "travel"). Variants (trees,
three seeds, span weights, the shipped packing rule, as `question_type.py`): the shipped
recipe; + the thread columns; + the thread columns with mates of any speaker. Each: evidence
and answer recall at 1,000 and 2,000 tokens per held-out dataset and category, and the gap
to the shipped recipe with its standard error.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np
from question_type import fitter, run, sets

from graphmem.client import Memory
from graphmem.eval.runner import space_prefix
from graphmem.providers.nlp import nlp
from graphmem.retrieve.fused.features import FEATURES
from graphmem.retrieve.fused.space_index import read_space_turns
from graphmem.training.samples import Sample

COLUMNS = ("thread:mates", "thread:tie", "thread:vector", "thread:support", "thread:bm25")
CONTENT = {"NOUN", "PROPN"}
VECTOR = FEATURES.index("vector:score")
BM25 = FEATURES.index("bm25:score")


@dataclass
class Space:
    """What the thread columns read of one space's turns, by row."""

    speakers: list[str]
    sessions: list[str]
    lemmas: list[dict[str, float]]  # each turn's content lemmas and their idf


def space(memory: Memory, name: str) -> Space:
    """The speakers, sessions and weighed content lemmas of the turns of space ``name`` (their
    text; image captions are not read)."""
    table = read_space_turns(memory.store, name)
    if not table.rows:
        raise SystemExit(f"space {name} holds no turns: the cached candidates were collected "
                         "from spaces this database no longer holds (run train-ranker again)")
    names = {part.lower() for row in table.rows for part in row.speaker.split()}
    said: list[set[str]] = []
    for doc in nlp().pipe([row.text for row in table.rows], batch_size=128,
                          disable=["parser", "ner"]):
        said.append({t.lemma_.lower() for t in doc
                     if t.pos_ in CONTENT and t.is_alpha and not t.is_stop and len(t) > 2
                     and t.lemma_.lower() not in names})
    df = Counter(lemma for lemmas in said for lemma in lemmas)
    n = max(1, len(said))
    return Space([row.speaker for row in table.rows], [row.session_id for row in table.rows],
                 [{lemma: math.log(n / df[lemma]) for lemma in lemmas} for lemmas in said])


def ties(s: Sample, at: Space, any_speaker: bool = False) -> list[dict[int, float]]:
    """Each of ``s``'s candidates' thread mates (candidate index -> tie weight): the other
    candidates of the same speaker (any, with ``any_speaker``) in another session sharing a
    content lemma with it, each weighing the summed idf of what they share."""
    rows = s.rows
    by_lemma: dict[str, list[int]] = {}
    for i, r in enumerate(rows):
        for lemma in at.lemmas[r]:
            by_lemma.setdefault(lemma, []).append(i)
    out: list[dict[int, float]] = []
    for i, r in enumerate(rows):
        found: dict[int, float] = {}
        for lemma, weight in at.lemmas[r].items():
            for j in by_lemma[lemma]:
                other = rows[j]
                if j == i or at.sessions[other] == at.sessions[r]:
                    continue
                if not any_speaker and at.speakers[other] != at.speakers[r]:
                    continue
                found[j] = found.get(j, 0.0) + weight
        out.append(found)
    return out


def columns(s: Sample, at: Space, any_speaker: bool) -> np.ndarray:
    """The thread columns (``COLUMNS``) of each of ``s``'s candidates."""
    out = np.zeros((len(s.rows), len(COLUMNS)), dtype=np.float32)
    for i, found in enumerate(ties(s, at, any_speaker)):
        if not found:
            continue
        mates = np.fromiter(found, dtype=np.int64)
        weights = np.fromiter(found.values(), dtype=np.float64)
        close = s.x[mates, VECTOR]
        out[i] = (math.log1p(len(mates)), weights.max() / 10, close.max(),
                  float(weights @ close / weights.sum()), s.x[mates, BM25].max())
    return out


def space_of(memory: Memory) -> Callable[[Sample], Space]:
    """Each sample's space (read and parsed once per space)."""
    prefixes = {options.get("family", dataset): space_prefix(dataset, path, memory)  # type: ignore[arg-type]
                for dataset, path, options in sets(0)}
    spaces: dict[str, Space] = {}

    def of(s: Sample) -> Space:
        name = f"{prefixes[s.dataset]}-{s.conversation}"
        if name not in spaces:
            spaces[name] = space(memory, name)
        return spaces[name]
    return of


def threaded(samples: list[Sample], texts: list[str]) -> list[Sample]:
    """The samples with the thread columns of the same speaker, then of any speaker, after
    the shipped ones."""
    del texts
    out = []
    with Memory() as memory:
        of = space_of(memory)
        for s in samples:
            assert s.x.shape[1] == len(FEATURES), s.x.shape
            at = of(s)
            out.append(replace(s, x=np.hstack([s.x, columns(s, at, False),
                                               columns(s, at, True)])))
    return out


def main() -> None:
    same = list(range(len(FEATURES), len(FEATURES) + len(COLUMNS)))
    anyone = [c + len(COLUMNS) for c in same]
    run(__doc__, lambda shipped: {
        "shipped recipe": fitter(shipped), "+ thread columns": fitter(shipped + same),
        "+ thread columns, any speaker": fitter(shipped + anyone)},
        prepare=threaded, thread_columns=COLUMNS)


if __name__ == "__main__":
    main()
