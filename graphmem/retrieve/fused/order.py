"""The order in which packing offers the candidates: best worth first, a worth that may
shrink as packing shows other turns.

A way of showing a candidate (its line, or its statement) is worth its P per cost (see
:func:`~graphmem.retrieve.fused.pipeline.select`). Two rules lower that worth as the context
fills, and both only ever lower it, so the order can be kept lazily: a way is re-scored when
it reaches the front of the queue and what it depends on has changed since, then put back.

- ``spread`` (questions asking for every item of a kind): times ``spread`` for each turn of
  its session already shown, so the items of a list are looked for across sessions;
- ``cover`` (coverage by meaning): times ``1 - cover * r``, where ``r`` is how close the
  candidate's turn is to the closest turn shown so far: 0 up to a cosine of ``similar``,
  rising to 1 for the same vector. A second mention of a fact already in the context then
  gives way to a turn that says something else.

Without ``cover`` (or without the turns' vectors) the order is exactly the one packing always
had.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator

import numpy as np

Way = tuple[float, int, int, bool]  # (worth, candidate, cost, whole)


class Order:
    """Hands out the ways best first; the packer tells it each candidate it shows
    (:meth:`show`)."""

    def __init__(self, ways: list[Way], sessions: list[str], spread: float = 1.0,
                 vectors: np.ndarray | None = None, cover: float = 0.0,
                 similar: float = 0.5) -> None:
        self.ways = ways
        self.sessions = sessions
        self.spread = spread
        self.taken: dict[str, int] = {}  # session -> candidates shown from it
        self.covering = cover > 0 and vectors is not None and len(vectors) == len(sessions)
        self.vectors = vectors if self.covering else None
        self.cover = cover
        self.similar = similar
        self.shown: list[int] = []  # candidates shown, in order
        self.closest = np.zeros(len(sessions))  # each candidate's cosine to the closest shown
        self.compared = np.zeros(len(sessions), dtype=np.int64)  # shown turns compared so far

    def show(self, n: int) -> None:
        self.taken[self.sessions[n]] = self.taken.get(self.sessions[n], 0) + 1
        self.shown.append(n)

    def __iter__(self) -> Iterator[tuple[int, int, bool]]:
        if self.covering:
            return self._covering()
        if self.spread >= 1:
            return ((n, cost, whole) for _, n, cost, whole
                    in sorted(self.ways, key=lambda w: (-w[0], w[1], not w[3])))
        return self._spreading()

    def _spreading(self) -> Iterator[tuple[int, int, bool]]:
        heap = [(-worth, n, not whole, cost, 0) for worth, n, cost, whole in self.ways]
        heapq.heapify(heap)
        while heap:
            worth, n, part, cost, seen = heapq.heappop(heap)
            now = self.taken.get(self.sessions[n], 0)
            if now != seen:  # its session gained turns since: worth less, back in line
                heapq.heappush(heap, (worth * self.spread ** (now - seen), n, part, cost, now))
                continue
            yield n, cost, not part

    def _covering(self) -> Iterator[tuple[int, int, bool]]:
        # each entry keeps its worth before either rule and how many turns had been shown
        # when it was last scored
        heap = [(-worth, n, not whole, cost, 0, worth) for worth, n, cost, whole in self.ways]
        heapq.heapify(heap)
        while heap:
            _, n, part, cost, seen, base = heapq.heappop(heap)
            if len(self.shown) != seen:
                heapq.heappush(heap, (-self._worth(n, base), n, part, cost, len(self.shown),
                                      base))
                continue
            yield n, cost, not part

    def _worth(self, n: int, base: float) -> float:
        assert self.vectors is not None
        new = [m for m in self.shown[self.compared[n]:] if m != n]  # not its own line
        self.compared[n] = len(self.shown)
        if new:
            cosines = self.vectors[new] @ self.vectors[n]
            self.closest[n] = max(self.closest[n], float(cosines.max()))
        near = min(1.0, max(0.0, (self.closest[n] - self.similar) / (1.0 - self.similar)))
        shrink = self.spread ** self.taken.get(self.sessions[n], 0)
        return float(base * shrink * (1.0 - self.cover * near))
