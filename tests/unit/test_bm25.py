"""graphmem's BM25 index gives bm25s's Lucene scores bit for bit, for an index built at once
and for one grown by documents placed among the others (as appended turns are)."""

from __future__ import annotations

import random

import bm25s
import numpy as np

from graphmem.retrieve.fused.bm25 import Bm25


def corpus(rng: random.Random, n: int) -> list[list[str]]:
    words = [f"w{i}" for i in range(60)]
    return [[rng.choice(words[: rng.randint(3, 60)]) for _ in range(rng.randint(0, 25))]
            for _ in range(n)]


def reference(docs: list[list[str]], terms: list[str]) -> np.ndarray:
    model = bm25s.BM25(k1=1.2, b=0.75, method="lucene")
    model.index(docs, show_progress=False)
    known = [t for t in terms if t in model.vocab_dict]
    if not known:
        return np.zeros(len(docs), dtype=np.float32)
    return np.asarray(model.get_scores(known), dtype=np.float32)


def test_scores_equal_bm25s_bit_for_bit() -> None:
    rng = random.Random(7)
    for size in (1, 2, 40, 300):
        docs = corpus(rng, size)
        docs[0] = docs[0] or ["w1"]  # bm25s needs one term somewhere
        index = Bm25.of(docs)
        for terms in (["w1"], ["w3", "w40", "w3"], ["w59", "nothing"], ["nothing"],
                      [f"w{rng.randint(0, 59)}" for _ in range(8)]):
            assert np.array_equal(index.scores(terms), reference(docs, terms)), (size, terms)


def test_an_index_grown_by_placed_documents_equals_one_built_at_once() -> None:
    rng = random.Random(11)
    docs = corpus(rng, 200)
    index = Bm25.of(docs)
    new = corpus(rng, 30)
    # the 30 new documents go to random places among the 230
    places = sorted(rng.sample(range(230), 30))
    kept = np.asarray([i for i in range(230) if i not in set(places)], dtype=np.int64)
    grown = index.placed(kept, 230, list(zip(places, new, strict=True)))
    whole: list[list[str]] = [[] for _ in range(230)]
    for old, place in enumerate(kept):
        whole[place] = docs[old]
    for place, terms in zip(places, new, strict=True):
        whole[place] = terms
    for terms in (["w2", "w5"], ["w0", "w0", "w33"], [f"w{i}" for i in range(0, 60, 7)]):
        assert np.array_equal(grown.scores(terms), reference(whole, terms))
        assert np.array_equal(grown.scores(terms), Bm25.of(whole).scores(terms))
    assert np.array_equal(index.scores(["w2"]), reference(docs, ["w2"]))  # left as it was
