"""Why `graphmem` recalled each turn it shows, and why the best of the rest stayed out.

Made from what the search computed anyway (each source's rank and score of a turn, the
ranker's features, the probabilities, packing's steps), plus one thing it did not: the
ranker's per-feature contributions (:meth:`~graphmem.retrieve.fused.ranker.Ranker.
contributions`), for the shown turns and the best left out only. Nothing here changes what
the search returns.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from graphmem.explanations import Found, LeftOut, Moved, Why
from graphmem.models import Hit
from graphmem.retrieve.explaining import LEFT_OUT, Explaining, ordinal
from graphmem.retrieve.fused.features import columns
from graphmem.retrieve.fused.pipeline import Candidates, PackingRule, Placed
from graphmem.retrieve.fused.ranker import Ranker

MOVED = 6  # features shown per unit, by the size of their effect
HOW = ("graphmem: every source the space can feed proposes turns, with the turns beside "
       "them; a learned ranker gives each candidate a probability of being evidence from its "
       "features, mixed with its neighbours'; packing takes the candidates by probability per "
       "token (tokens raised to gamma) until the budget is spent, and the context shows them "
       "session by session in time order")


def _placed(step: Placed | None, budget: int, rows: Sequence[str]) -> str:
    if step is None:
        return "left out: never offered"
    what, at, cost, tokens = step
    if what == "left":
        return (f"left out: offered {ordinal(at)} by worth, it needed {cost} tokens and "
                f"{tokens} of {budget} were left")
    if what == "paired":
        return (f"shown with the short reply after it ({rows[at]}), which it answers: "
                f"{cost} tokens, {tokens} of {budget} used with it")
    shown = {"shown": "shown", "statement": "shown by its statement nearest the question "
             "(cheaper than the whole turn)", "whole": "shown whole (first by its statement, "
             "then the budget had room)"}[what]
    return f"{shown}: offered {ordinal(at)} by worth, {cost} tokens, {tokens} of {budget} used"


def _moved(effects: np.ndarray | None, values: np.ndarray,
           names: list[str]) -> list[list[Moved]]:
    """Each row's ``MOVED`` largest effects (none that is 0), largest first."""
    if effects is None:
        return []
    top = np.argsort(-np.abs(effects), axis=1, kind="stable")[:, :MOVED]
    picked = np.take_along_axis(effects, top, axis=1).round(4).tolist()
    shown = np.take_along_axis(values.astype(np.float64), top, axis=1).round(4).tolist()
    make = Moved.model_construct
    return [[make(feature=names[i], value=v, effect=e)
             for i, v, e in zip(order, vals, effs, strict=True) if e != 0]
            for order, vals, effs in zip(top.tolist(), shown, picked, strict=True)]


def explain(explaining: Explaining, hits: list[Hit], found: Candidates, learned: np.ndarray,
            mixed: np.ndarray, trace: dict[int, Placed], ranker: Ranker, rule: PackingRule,
            budget: int, moved: set[int]) -> list[Hit]:
    """``hits`` (what the search shows) with their ``why``; the best candidates left out, the
    ranker and the question's parts go to ``explaining``."""
    table, signals = found.table, found.signals
    at = {row: n for n, row in enumerate(found.rows)}
    shown = [at[table.index[h.source_turn_ids[0]]] for h in hits]
    out = set(range(len(found.rows))) - set(shown)
    left = sorted(out, key=lambda n: (-mixed[n], n))[:LEFT_OUT]
    wanted = shown + left
    effects, bases = ranker.contributions(found.x[wanted]) if wanted else (None, None)
    names = [columns()[i] for i in ranker.columns]
    moved_by = _moved(effects, found.x[wanted][:, ranker.columns], names) if wanted else []
    reached = signals.rows()
    ids = [table.rows[r].id for r in found.rows]
    quiet = found.quiet
    # Found, Moved and Why are made without validation: every value is of its type already
    make = Found.model_construct

    def why(k: int, n: int) -> Why:
        row = found.rows[n]
        by = sorted((make(source=s, rank=got[0] + 1, score=round(got[1], 4),
                          asked=signals.asked.get(s, {}).get(row))
                     for s, ranks in signals.ranks.items() if (got := ranks.get(row))),
                    key=lambda f: (f.rank, f.source))
        near = [table.rows[j].id for step in (-1, 1)
                if (j := table.neighbour(row, step)) is not None and j in reached] \
            if not by else []
        assert bases is not None
        least = rule.floor if quiet[n] else 1
        cost = trace[n][2] if n in trace and trace[n][0] != "left" else found.costs[n]
        placed = _placed(trace.get(n), budget, ids)
        if row in moved:
            placed += "; read after the later turn that changed its fact"
        return Why.model_construct(
            found_by=by, near=near, probability=round(float(learned[n]), 4),
            mixed=round(float(mixed[n]), 4), base=round(float(bases[k]), 4),
            moved_by=moved_by[k], tokens=cost,
            worth=round(float(mixed[n]) / max(1, least, found.costs[n]) ** rule.gamma, 6),
            packed=placed, detail={})

    explained = [h.model_copy(update={"why": why(k, n)})
                 for k, (h, n) in enumerate(zip(hits, shown, strict=True))]
    explaining.own = True
    explaining.how = HOW
    explaining.candidates = len(found.rows)
    q = found.question
    explaining.detail = {
        "sources": list(signals.sources), "features": len(names),
        "rule": {"gamma": rule.gamma, "blend": rule.blend, "window": rule.window,
                 "carry": rule.carry, "pairs": rule.pairs, "spread": rule.spread,
                 "cover": rule.cover},
        "parts": list(q.parts), "kind": q.kind, "lists": q.asked.listing,
        "persons": list(q.asked.persons)}
    explaining.left_out = [
        LeftOut(id=ids[n], kind="turn", text=table.rows[found.rows[n]].shown(),
                source_turn_ids=[ids[n]], why=why(len(shown) + j, n))
        for j, n in enumerate(left)]
    return explained
