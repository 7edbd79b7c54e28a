"""One question's labelled candidates, as the ranker's training and validation read them."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from graphmem.retrieve.fused.features import turn_units, unit_rows
from graphmem.retrieve.fused.pipeline import QUIET, Candidates


@dataclass
class Sample:
    """One question's candidates: features, labels and what packing needs."""

    dataset: str
    split: str  # the file's name: reports are per split
    conversation: str
    category: str
    x: np.ndarray
    y: np.ndarray
    costs: list[int]
    heads: list[int]
    sessions: list[str]
    evidence: int  # gold evidence turns, reached or not
    shorts: list[int | None] = field(default_factory=list)  # statement costs; [] for none
    words: int = 0  # the gold answer's words to find (see graphmem.eval.metrics.answer_words)
    found: list[frozenset[str]] = field(default_factory=list)  # of them, each candidate's
    listing: bool = False  # the question asks for every item of a kind
    # each candidate's turn before it in its session, as a candidate index (-1: not a
    # candidate, or the session's first turn): packing reply pairs together
    before: list[int] = field(default_factory=list)
    # each candidate's row in its space's table (a session's turns are consecutive rows, in
    # order): how far apart two candidates are in the conversation
    rows: list[int] = field(default_factory=list)
    # the space's turn vectors (one array shared by the samples of a space) and each
    # candidate's index among them (-1: none): packing by coverage reads them
    space_vectors: np.ndarray | None = None
    units: np.ndarray | None = None
    notes: list[int] = field(default_factory=list)  # each line's resolved times' tokens

    @property
    def quiet(self) -> np.ndarray:
        """Which candidates are small talk (the packing floor holds for them)."""
        return np.asarray(self.x[:, QUIET] > 0)

    @property
    def vectors(self) -> np.ndarray | None:
        """Each candidate's turn vector (zero without one), when they were kept."""
        if self.space_vectors is None or self.units is None:
            return None
        return unit_rows(self.space_vectors, self.units)

    @classmethod
    def of(cls, found: Candidates, y: np.ndarray, dataset: str, split: str,
           conversation: str, category: str, evidence: int, words: int,
           hits: list[frozenset[str]]) -> Sample:
        """A question's candidates as the pipeline found them, labelled."""
        held = turn_units(found.table, found.signals, found.rows)
        vectors, units = held if held is not None else (None, None)
        return cls(dataset, split, conversation, category, found.x, y, found.costs,
                   found.heads, found.sessions, evidence, found.shorts, words, hits,
                   found.listing, found.before, list(found.rows), vectors, units,
                   found.notes)
