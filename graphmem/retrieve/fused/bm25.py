"""BM25 over one space's turns (Lucene's variant, k1 = 1.2, b = 0.75) that grows with the
turns appended to the space.

Its scores equal bm25s's (``method="lucene"``) bit for bit: the same terms, and the same float
arithmetic for each turn and term (``tests/unit/test_bm25.py`` compares the two). bm25s stores
the score of every (turn, term) pair, and every one of them depends on the number of turns and
their mean length, so adding one turn meant building the whole index again (about 40 ms for a
space of 5,000 turns, at each search after a live message). This index keeps each turn's term
counts instead and scores only the question's terms when asked: adding turns costs what their
own terms cost.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

K1, B = 1.2, 0.75


@dataclass(frozen=True)
class Bm25:
    """Term counts of the documents (turns) of one space, as postings: ``doc``, ``term`` and
    ``tf`` (how often the term occurs in the document) per posting; ``lengths`` per document;
    ``vocab``: each term's number."""

    vocab: dict[str, int]
    doc: np.ndarray  # int64
    term: np.ndarray  # int64
    tf: np.ndarray  # float32
    lengths: np.ndarray  # int64, terms per document

    @classmethod
    def of(cls, docs: Sequence[Sequence[str]]) -> Bm25:
        """The index of ``docs`` (each a list of terms)."""
        empty = cls({}, np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64),
                    np.zeros(0, dtype=np.float32), np.zeros(0, dtype=np.int64))
        return empty.placed(np.zeros(0, dtype=np.int64), len(docs), list(enumerate(docs)))

    def placed(self, moved: np.ndarray, size: int,
               added: Sequence[tuple[int, Sequence[str]]]) -> Bm25:
        """A new index of ``size`` documents: document ``i`` of this one becomes document
        ``moved[i]``, and each ``(place, terms)`` of ``added`` is a new document."""
        vocab = dict(self.vocab)
        docs: list[int] = []
        terms: list[int] = []
        counts: list[int] = []
        lengths = np.zeros(size, dtype=np.int64)
        lengths[moved] = self.lengths
        for place, words in added:
            lengths[place] = len(words)
            for word, n in Counter(words).items():
                docs.append(place)
                terms.append(vocab.setdefault(word, len(vocab)))
                counts.append(n)
        return Bm25(vocab,
                    np.concatenate([moved[self.doc], np.asarray(docs, dtype=np.int64)]),
                    np.concatenate([self.term, np.asarray(terms, dtype=np.int64)]),
                    np.concatenate([self.tf, np.asarray(counts, dtype=np.float32)]),
                    lengths)

    def scores(self, terms: Sequence[str]) -> np.ndarray:
        """Each document's score for ``terms`` (float32; a term given twice counts twice, a
        term no document holds adds nothing), as bm25s computes it."""
        out = np.zeros(len(self.lengths), dtype=np.float32)
        known = [self.vocab[t] for t in terms if t in self.vocab]
        if not known or not len(self.lengths):
            return out
        n = len(self.lengths)
        mean = np.float64(int(self.lengths.sum())) / n  # as numpy's mean of the lengths
        for number in known:
            at = np.flatnonzero(self.term == number)
            if not len(at):
                continue
            docs, tf = self.doc[at], self.tf[at].astype(np.float64)
            df = len(at)
            idf = np.float32(math.log(1 + (n - df + 0.5) / (df + 0.5)))
            length = K1 * ((1 - B) + B * self.lengths[docs].astype(np.float64) / mean)
            out[docs] += (idf * (tf / (length + tf))).astype(np.float32)
        return out
