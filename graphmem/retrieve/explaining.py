"""What a strategy records while it explains a search, and the explanation of the strategies
that rank their units and leave the packing to the plain packer.

A search asked to explain gives its strategy an :class:`Explaining` (``RetrievalContext.
explaining``; None otherwise, and then nothing here runs). A strategy notes what it holds for
the whole question (``detail``) and for each unit (``keep``); one that packs its own context
(`graphmem`) explains its hits itself and says so (``own``). For every other strategy,
:func:`explain_plain` reads the plain packer's steps: each unit's rank and score, where it
went in the context, and why the best of those that did not fit were left out.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from graphmem.explanations import Explanation, Found, LeftOut, Why
from graphmem.models import Hit
from graphmem.retrieve.packing import Step, pack

LEFT_OUT = 5  # the best candidates left out that an explanation shows
PLAIN = ("ranks its units by its own score (below, per unit); packing takes them in that "
         "order, each that still fits the budget")


@dataclass
class Explaining:
    """Filled by the strategy during one search (see the module's docstring)."""

    how: str = ""
    candidates: int = 0
    detail: dict[str, Any] = field(default_factory=dict)
    per_unit: dict[str, dict[str, Any]] = field(default_factory=dict)
    left_out: list[LeftOut] = field(default_factory=list)
    own: bool = False  # the strategy set each hit's ``why`` itself

    def keep(self, rows: Iterable[dict[str, Any]], **columns: str) -> None:
        """Note, for each row's unit (its ``id``), the row's ``columns`` under the names
        given (``pagerank="score"``)."""
        for row in rows:
            self.per_unit.setdefault(row["id"], {}).update(
                {name: _rounded(row[column]) for name, column in columns.items()
                 if row.get(column) is not None})


def _rounded(value: Any) -> Any:
    return round(value, 4) if isinstance(value, float) else value


def ordinal(n: int) -> str:
    tail = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{tail}"


def explain_plain(strategy: str, hits: Sequence[Hit], budget: int,
                  explaining: Explaining) -> tuple[list[Hit], Explanation]:
    """The hits with their ``why`` and the search's explanation, for a strategy packed by
    the plain packer (its hits in rank order, each that fits)."""
    steps: list[Step] = []
    pack(hits, budget, steps)
    out: list[Hit] = []
    left: list[LeftOut] = []
    shown = 0
    for rank, (hit, (fits, cost, tokens)) in enumerate(zip(hits, steps, strict=True), 1):
        if fits:
            shown += 1
            packed = (f"{ordinal(shown)} in the context: {ordinal(rank)} by score and it fit "
                      f"({tokens} of {budget} tokens used with it)")
        elif cost == 0:
            packed = "left out: it renders as no text"
        else:
            packed = (f"left out: {ordinal(rank)} by score, it needs {cost} tokens and "
                      f"{tokens} were left")
        why = Why(found_by=[Found(source=strategy, rank=rank, score=round(hit.score, 4))],
                  tokens=cost, packed=packed, detail=explaining.per_unit.get(hit.id, {}))
        out.append(hit.model_copy(update={"why": why}))
        if not fits and len(left) < LEFT_OUT:
            left.append(LeftOut(id=hit.id, kind=hit.kind, text=hit.text,
                                source_turn_ids=hit.source_turn_ids, why=why))
    return out, Explanation(strategy=strategy, how=explaining.how or f"{strategy} {PLAIN}",
                            candidates=max(explaining.candidates, len(hits)),
                            detail=explaining.detail, left_out=left)


def explained(strategy: str, hits: Sequence[Hit], budget: int,
              explaining: Explaining) -> tuple[list[Hit], Explanation]:
    """The hits with their ``why`` and the search's explanation: the strategy's own, or
    :func:`explain_plain`'s."""
    if not explaining.own:
        return explain_plain(strategy, hits, budget, explaining)
    return list(hits), Explanation(strategy=strategy, how=explaining.how,
                                   candidates=explaining.candidates, detail=explaining.detail,
                                   left_out=explaining.left_out)
