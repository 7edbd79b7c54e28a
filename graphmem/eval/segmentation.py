"""Topic-segmentation metrics: Pk, WindowDiff, boundary F1 and their combined Score.

A segmentation of ``n`` utterances is given by its boundaries: the indices of utterances that
start a new segment (0 is never one). Pure functions.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


def segment_ids(boundaries: Sequence[int], n: int) -> list[int]:
    """Segment number of every utterance."""
    starts = set(boundaries)
    out, current = [], 0
    for i in range(n):
        if i in starts and i > 0:
            current += 1
        out.append(current)
    return out


def window_size(reference: Sequence[int], n: int) -> int:
    """Half the mean reference segment length, rounded down, at least 1."""
    segments = len({b for b in reference if 0 < b < n}) + 1
    return max(1, int(n / segments / 2))


def pk(reference: Sequence[int], hypothesis: Sequence[int], n: int, k: int) -> float:
    """Share of windows ``(i, i + k)`` whose ends the two segmentations put together differently."""
    ref, hyp = segment_ids(reference, n), segment_ids(hypothesis, n)
    windows = n - k
    if windows <= 0:
        return 0.0
    wrong = sum((ref[i] == ref[i + k]) != (hyp[i] == hyp[i + k]) for i in range(windows))
    return wrong / windows


def window_diff(reference: Sequence[int], hypothesis: Sequence[int], n: int, k: int) -> float:
    """Share of windows in which the two segmentations count a different number of boundaries."""
    ref, hyp = segment_ids(reference, n), segment_ids(hypothesis, n)
    windows = n - k
    if windows <= 0:
        return 0.0
    wrong = sum((ref[i + k] - ref[i]) != (hyp[i + k] - hyp[i]) for i in range(windows))
    return wrong / windows


@dataclass(frozen=True)
class SegmentationScores:
    pk: float
    wd: float
    f1: float
    score: float
    n_dialogues: int


def evaluate(pairs: Sequence[tuple[Sequence[int], Sequence[int], int]]) -> SegmentationScores:
    """Pk and WD averaged over dialogues (k per dialogue), F1 over all boundaries pooled, and
    Score = (2·F1 + (1 − Pk) + (1 − WD)) / 4. ``pairs`` holds (reference, hypothesis, n)."""
    if not pairs:
        raise ValueError("no dialogues to evaluate")
    pks, wds = [], []
    hits = predicted = gold = 0
    for reference, hypothesis, n in pairs:
        k = window_size(reference, n)
        pks.append(pk(reference, hypothesis, n, k))
        wds.append(window_diff(reference, hypothesis, n, k))
        ref, hyp = {b for b in reference if 0 < b < n}, {b for b in hypothesis if 0 < b < n}
        hits += len(ref & hyp)
        predicted += len(hyp)
        gold += len(ref)
    precision = hits / predicted if predicted else 0.0
    recall = hits / gold if gold else 0.0
    f1 = 2 * precision * recall / (precision + recall) if hits else 0.0
    mean_pk, mean_wd = sum(pks) / len(pks), sum(wds) / len(wds)
    score = (2 * f1 + (1 - mean_pk) + (1 - mean_wd)) / 4
    return SegmentationScores(mean_pk, mean_wd, f1, score, len(pairs))
