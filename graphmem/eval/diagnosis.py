"""Where each missed evidence turn was lost, so a change to retrieval can be aimed at the stage
that loses the most.

For a search within a budget, every gold evidence turn the context does not cover
(:func:`graphmem.eval.metrics.covered_turns`) is lost in one of three places:

* ``not_ranked``: nothing in the strategy's ranking would credit it: it never became a
  candidate (or, for a strategy ranking units, only comes inside a unit naming more than three
  sources, which earns nothing);
* ``below_budget``: the best candidate that credits it ranks below the first k, k being how
  many candidates the context holds: the budget ran out before it;
* ``cut_by_packing``: it ranks among the first k but was not packed: it did not fit in what
  was left (a long turn), or the packing preferred others (``graphmem`` packs by value per
  token and fills what is left with shorter, lower-ranked turns).

The rank reported is the 1-based position of that best hit in the strategy's ranking.
"""

from __future__ import annotations

import math
import statistics
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from graphmem.eval.metrics import MAX_SOURCES_FOR_CREDIT, QUOTE_WORDS, WORD, covered_turns
from graphmem.models import Hit, SearchResult

PLACES = ("not_ranked", "below_budget", "cut_by_packing")


def _credits(hit: Hit, source: str, text: str) -> bool:
    if source in hit.source_ids and len(hit.source_ids) <= MAX_SOURCES_FOR_CREDIT:
        return True
    return bool(text) and len(WORD.findall(text)) >= QUOTE_WORDS and text in hit.text


def where_lost(result: SearchResult, evidence: Mapping[str, str],
               ranking: Sequence[Sequence[str]] | None = None,
               ) -> list[tuple[str, str, int | None]]:
    """``(evidence id, place, rank)`` for each evidence turn the context misses. ``ranking``
    is the strategy's whole ranking when it returns only what it packed
    (:data:`graphmem.retrieve.base.RANKING`): each candidate's source ids, best first;
    without it the ranking is the hits'."""
    chosen = set(result.included)
    included = [hit for hit in result.hits if hit.id in chosen]
    covered = covered_turns(included, result.context, evidence)
    if ranking is None:
        held = len(included)
    else:
        packed = {s for hit in included for s in hit.source_ids}
        held = sum(1 for ids in ranking if packed.intersection(ids))
    lost: list[tuple[str, str, int | None]] = []
    for source, text in evidence.items():
        if source in covered:
            continue
        if ranking is None:
            rank = next((i for i, hit in enumerate(result.hits)
                         if _credits(hit, source, text)), None)
        else:
            rank = next((i for i, ids in enumerate(ranking) if source in ids), None)
        if rank is None:
            lost.append((source, "not_ranked", None))
        else:
            lost.append((source, "cut_by_packing" if rank < held else "below_budget", rank + 1))
    return lost


@dataclass
class LossTally:
    """Missed evidence by category and budget."""

    places: dict[str, dict[int, Counter[str]]] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(Counter)))
    ranks: dict[str, dict[int, list[int]]] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(list)))
    evidence: dict[str, dict[int, int]] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(int)))

    def add(self, category: str, budget: int, result: SearchResult,
            evidence: Mapping[str, str],
            ranking: Sequence[Sequence[str]] | None = None) -> None:
        self.evidence[category][budget] += len(evidence)
        for _source, place, rank in where_lost(result, evidence, ranking):
            self.places[category][budget][place] += 1
            if place == "below_budget" and rank is not None:
                self.ranks[category][budget].append(rank)

    def summary(self, budgets: list[int]) -> dict[str, Any]:
        """Per category and budget: the share of all evidence turns lost in each place, and
        the median and 90th-percentile rank of those ranked below the budget."""
        out: dict[str, Any] = {}
        for category in sorted(self.evidence):
            per: dict[str, Any] = {}
            for budget in budgets:
                total = self.evidence[category][budget]
                if not total:
                    continue
                counts = self.places[category][budget]
                ranks = sorted(self.ranks[category][budget])
                per[str(budget)] = {
                    "evidence": total,
                    **{place: round(counts[place] / total, 4) for place in PLACES},
                    "below_budget_rank_median": statistics.median(ranks) if ranks else None,
                    "below_budget_rank_p90": ranks[math.ceil(0.9 * len(ranks)) - 1] if ranks
                    else None,  # nearest rank
                }
            out[category] = per
        return out
