"""A candidate's P read together with the candidates around it in the conversation.

Evidence comes in stretches: a meeting's discussion of one point runs over dozens of turns,
a scene of a TV script over a few lines, a short reply sits next to what it answers. A
turn inside a stretch of likely turns is then likelier than its own features say, and a
lone high score among unlikely neighbours a little less. So the packed P is

    P' = (1 - weight) P + weight K(P)

where K(P) of a candidate is the weighted mean P of the candidates of its session at most
``turns`` turns away, itself included: a candidate d turns away weighs 1 - d / (turns + 1)
(a triangle), and turns that are not candidates count for nothing (neither their P nor
their weight). The width and the weight are chosen on the leave-one-dataset-out matrix
(:mod:`graphmem.training.transfer`) and kept in the ranker's file.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def along(p: np.ndarray, rows: Sequence[int], sessions: Sequence[str], turns: int,
          weight: float) -> np.ndarray:
    """``p`` mixed with each candidate's neighbourhood mean (see the module's text).

    ``rows`` are the candidates' places in the conversation (a session's turns are
    consecutive numbers, in order) and ``sessions`` their sessions; both as long as ``p``.
    ``turns`` 0 or ``weight`` 0 returns ``p`` itself."""
    if turns <= 0 or weight <= 0 or len(p) == 0:
        return p
    if len(rows) != len(p) or len(sessions) != len(p):
        raise ValueError("p, rows and sessions must be as long as one another")
    codes: dict[str, int] = {}
    session = np.asarray([codes.setdefault(name, len(codes)) for name in sessions],
                         dtype=np.int64)
    place = np.asarray(rows, dtype=np.int64)
    place = place - place.min()  # a new array: the caller's rows stay as they were
    # one sorted key per candidate: its session's band, then its place in it; a band is wide
    # enough that a step of at most ``turns`` never lands in the next session's band
    key = session * (int(place.max()) + turns + 1) + place
    order = np.argsort(key, kind="stable")
    key, value = key[order], np.asarray(p, dtype=np.float64)[order]
    steps = np.concatenate([np.arange(1, turns + 1), -np.arange(1, turns + 1)])
    share = 1.0 - np.abs(steps) / (turns + 1)  # a triangle: nearer turns weigh more
    probe = key[None, :] + steps[:, None]  # (steps, candidates)
    j = np.minimum(np.searchsorted(key, probe), len(key) - 1)
    hit = key[j] == probe
    total = value + (share[:, None] * np.where(hit, value[j], 0.0)).sum(axis=0)
    weights = 1.0 + (share[:, None] * hit).sum(axis=0)
    out = np.empty(len(key))
    out[order] = (1 - weight) * value + weight * total / weights
    return out
