"""The one pipeline of the fused strategy, which a search and the ranker's training both run:
the question analysed once, its candidates from every source, their features, then (given
probabilities) the choice of what to show within the budget under one packing rule.

A search (:class:`~graphmem.retrieve.fused.strategy.FusedSearch`) runs
:func:`candidates`, the ranker's probabilities, :func:`shaped` and :func:`select`;
training (:mod:`graphmem.training.ranker`) runs the same :func:`candidates` and keeps what
:func:`select` reads (a :class:`~graphmem.training.samples.Sample`), then measures any
probabilities and any :class:`PackingRule` with the same :func:`select`. What one changes,
the other sees.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property, partial
from typing import Any, NamedTuple, Protocol

import numpy as np

from graphmem.retrieve.base import RetrievalContext, SpaceState
from graphmem.retrieve.fused.candidates import Signals, asked_of, gather
from graphmem.retrieve.fused.features import (
    FEATURES,
    Asked,
    analyse,
    candidate_rows,
    matrix,
    turn_vectors,
)
from graphmem.retrieve.fused.order import Order, Way
from graphmem.retrieve.fused.sources import Pools
from graphmem.retrieve.fused.space_index import SpaceTurns, TurnRow
from graphmem.retrieve.fused.statements import Statement, turn_statements
from graphmem.retrieve.fused.window import along
from graphmem.retrieve.packing import count_tokens
from graphmem.telemetry import stage
from graphmem.text import format_date

QUIET = FEATURES.index("says_nothing")  # the column marking small talk
CHANGED = " (changed later)"  # ends a line whose fact a later turn changed
# what packing did with a candidate: (what, when it was offered (for "paired": the candidate
# that brought it), the tokens it cost or needed, the tokens used after it or left before it)
Placed = tuple[str, int, int, int]


class PackingRule(NamedTuple):
    """How probabilities become a context: chosen on the leave-one-dataset-out matrix
    (:mod:`graphmem.training.transfer` builds the grid of them) and kept in the ranker's
    file, which a search reads it from."""

    gamma: float = 0.0  # candidates go in order of P / tokens ** gamma
    blend: float = 0.0  # the unlearned order's weight in P (the ranker's file keeps its fit)
    floor: int = 0  # small talk counts at least this many tokens in that order
    spread: float = 1.0  # a list question: worth x spread per turn of its session shown
    pairs: int = 0  # a reply of at most this many tokens brings the turn it answers (0: no)
    window: int = 0  # P mixed with the candidates' at most this many turns away (0: no)
    carry: float = 0.0  # ... with this weight
    cover: float = 0.0  # a turn close to one shown is worth up to this share less (0: no)
    similar: float = 0.5  # ... counting from this cosine (see graphmem.retrieve.fused.order)


@dataclass(frozen=True)
class Question:
    """The question analysed once: who and when it names and whether it asks for a list
    (:class:`~graphmem.retrieve.fused.features.Asked`), its parts when it asks about several
    people or things, and the kind of item a list question asks for."""

    asked: Asked
    parts: tuple[str, ...] = ()
    kind: str | None = None

    @property
    def extras(self) -> tuple[str, ...]:
        """The texts the client's vectors are searched with besides the question."""
        return (*self.parts, *((self.kind,) if self.kind else ()))


def question(ctx: RetrievalContext, table: SpaceTurns, split: bool = True) -> Question:
    """``ctx.query`` analysed (dates read against the space's latest day) and, with
    ``split``, its parts and kind, embedded with the question in one batch."""
    parts, kind = asked_of(ctx.query.doc) if split else ((), None)
    found = Question(analyse(ctx.query, table.latest), parts, kind)
    ctx.query.embed_with(found.extras)
    return found


class Packable(Protocol):
    """What :func:`select` reads of a question's candidates (a search's
    :class:`Candidates`, or a training sample of them)."""

    costs: list[int]
    heads: list[int]
    sessions: list[str]
    shorts: list[int | None]
    rows: list[int]
    notes: list[int]  # tokens of each line's resolved times ([]: none shown)

    @property
    def listing(self) -> bool: ...

    @property
    def quiet(self) -> np.ndarray: ...

    @property
    def before(self) -> list[int]: ...

    @property
    def vectors(self) -> np.ndarray | None: ...


@dataclass
class Candidates:
    """One question's candidate turns: where they came from, their features and what packing
    reads (each candidate's line cost, header cost, session, statement cost)."""

    table: SpaceTurns
    question: Question
    signals: Signals
    rows: list[int]  # rows of the table
    x: np.ndarray  # their features, FEATURES order
    costs: list[int]
    heads: list[int]
    sessions: list[str]
    shorts: list[int | None]
    statements: list[Statement | None] | None
    notes: list[int] = field(default_factory=list)  # tokens of each line's resolved times

    @property
    def listing(self) -> bool:
        return self.question.asked.listing

    @property
    def quiet(self) -> np.ndarray:
        return np.asarray(self.x[:, QUIET] > 0)

    @cached_property
    def before(self) -> list[int]:
        return turns_before(self.table, self.rows)

    @cached_property
    def vectors(self) -> np.ndarray | None:
        """Each candidate's turn vector (zero without one), when the client holds them."""
        return turn_vectors(self.table, self.signals, self.rows)


def candidates(ctx: RetrievalContext, state: SpaceState, table: SpaceTurns, pools: Pools,
               sources: tuple[str, ...] | None = None, split: bool = True,
               statements: bool = False, times: bool = True) -> Candidates:
    """The question's candidates and their features (``split``: also asked of its parts,
    and of its kind; ``statements``: each candidate's statement nearest the question;
    ``times``: each costs what its line takes with its relative times resolved)."""
    with stage("question"):
        asked = question(ctx, table, split)
    with stage("candidates"):
        signals = gather(ctx, state, table, pools, sources, asked.parts, asked.kind)
        rows = candidate_rows(table, signals)
    with stage("ranking", candidates=len(rows)):
        x = matrix(table, signals, asked.asked, rows)
    with stage("packing"):
        found = turn_statements(ctx, state, table, rows, signals.held) if statements else None
        costs, heads, sessions, shorts = packing_inputs(table, rows, found, times)
        notes = [table.rows[r].cost() - table.rows[r].tokens for r in rows] if times else []
    return Candidates(table, asked, signals, rows, x, costs, heads, sessions, shorts, found,
                      notes)


def shaped(p: np.ndarray, cands: Packable, rule: PackingRule) -> np.ndarray:
    """The P packing reads: each candidate's mixed with its neighbours' (``rule.window``)."""
    return along(p, cands.rows, cands.sessions, rule.window, rule.carry)


def select(cands: Packable, p: np.ndarray, budget: int, rule: PackingRule,
           headers: bool = True, statements: bool = False,
           trace: dict[int, Placed] | None = None) -> list[tuple[int, bool]]:
    """Which candidates to show within ``budget``, and whether whole (True) or by their
    statement (False, only with ``statements``), as (candidate, whole) in the order chosen.

    A candidate costs its line, and its session's header once (``headers``) or on every
    line. Every way of showing a candidate is worth its P (a statement covers its turn); the
    ways go in order of P / max(cost, floor) ** gamma, the floor holding for small talk (a
    greeting is never chosen for being cheap), the cost there without the line's resolved
    times (``cands.notes``: they count against the budget, not against the turn's place);
    a candidate shown by its statement is shown whole instead when its line's turn comes
    and the budget has room for the difference.
    For a question asking for every item of a kind, a candidate's worth is multiplied by
    ``rule.spread`` for each turn of its session already shown. With ``rule.pairs``, a reply
    of at most that many tokens shown whole brings the turn it answers when that costs at
    most as much and fits: "Only twice so far" comes with "Have you been to the new climbing
    gym?". With ``rule.cover``, a candidate's worth also shrinks with its closeness to the
    turns already shown (:mod:`~graphmem.retrieve.fused.order`). ``trace``, when given, gets
    what became of each candidate (:data:`Placed`), for an explanation."""
    order = partial(Order, spread=rule.spread if cands.listing else 1.0,
                    vectors=cands.vectors if rule.cover else None, cover=rule.cover,
                    similar=rule.similar)
    return _choose(cands.costs, cands.heads, cands.sessions, p, budget, rule.gamma, headers,
                   cands.shorts if statements and cands.shorts else None, rule.floor,
                   order, cands.quiet, cands.before if rule.pairs else None, rule.pairs,
                   trace, cands.notes)


def _choose(costs: list[int], heads: list[int], sessions: list[str], p: np.ndarray,
            budget: int, gamma: float, headers: bool, shorts: Sequence[int | None] | None,
            floor: int, order: Callable[[list[Way], list[str]], Order], quiet: np.ndarray,
            before: list[int] | None, pairs: int,
            trace: dict[int, Placed] | None = None,
            notes: Sequence[int] = ()) -> list[tuple[int, bool]]:
    short = shorts if shorts is not None else [None] * len(costs)
    ways: list[Way] = []  # (P per cost, candidate, cost, whole)
    for n, cost in enumerate(costs):
        least = floor if quiet[n] else 1
        worth = cost - notes[n] if notes else cost
        ways.append((p[n] / max(1, least, worth) ** gamma, n, cost, True))
        cheaper = short[n]
        if cheaper is not None and cheaper < cost:
            ways.append((p[n] / max(1, least, cheaper) ** gamma, n, cheaper, False))
    opened: set[str] = set()
    used = 0
    shown: dict[int, tuple[int, bool]] = {}  # candidate -> (its line's cost, whole)
    queue = order(ways, sessions)
    for offered, (n, cost, whole) in enumerate(queue, 1):
        if n in shown:
            spent, was_whole = shown[n]
            if whole and not was_whole and used - spent + cost <= budget:
                used += cost - spent
                shown[n] = (cost, True)
                if trace is not None:  # its header, if it opened one, stays counted
                    trace[n] = ("whole", offered, cost + trace[n][2] - spent, used)
            continue
        extra = heads[n] if not headers or sessions[n] not in opened else 0
        if used + cost + extra > budget:
            if trace is not None and n not in trace:
                trace[n] = ("left", offered, cost + extra, budget - used)
            continue
        used += cost + extra
        opened.add(sessions[n])
        queue.show(n)
        shown[n] = (cost, whole)
        if trace is not None:
            trace[n] = ("shown" if whole else "statement", offered, cost + extra, used)
        m = before[n] if before and whole and cost <= pairs else -1
        if m >= 0 and m not in shown and costs[m] <= pairs:
            extra = heads[m] if not headers else 0  # its session is open: same session
            if used + costs[m] + extra <= budget:
                used += costs[m] + extra
                queue.show(m)
                shown[m] = (costs[m], True)
                if trace is not None:
                    trace[m] = ("paired", n, costs[m] + extra, used)
    return [(n, whole) for n, (_, whole) in shown.items()]


def header(turn: TurnRow) -> str:
    """A session's header line: its day, else the date as the input wrote it."""
    text = format_date(turn.started_at) or turn.date_text or ""
    return f"[{text}]" if text else ""


def turns_before(table: SpaceTurns, rows: list[int]) -> list[int]:
    """Each candidate's turn before it in its session, as a candidate index (-1: none)."""
    at = {r: n for n, r in enumerate(rows)}  # -1 (no turn before) is no row: stays -1
    return [at.get(j, -1) for j in table.neighbours(np.asarray(rows, dtype=np.int64), -1).tolist()]


def packing_inputs(table: SpaceTurns, rows: list[int],
                   statements: list[Statement | None] | None = None, times: bool = True
                   ) -> tuple[list[int], list[int], list[str], list[int | None]]:
    """Each candidate's line cost (with its resolved times, ``times``), header cost, session
    and statement cost (None without a statement)."""
    turns = [table.rows[r] for r in rows]
    shorts = [None if st is None else st.tokens for st in statements or [None] * len(rows)]
    # a header is its session's (day or date text): counted once per session of the table
    counted: dict[str, int] = table.derived.setdefault("header_tokens", {})
    for t in turns:
        if t.session_id not in counted:
            counted[t.session_id] = count_tokens(header(t))
    heads = [counted[t.session_id] for t in turns]
    marked = count_tokens(CHANGED)  # and its own day, when shown after what changed it
    costs = [t.cost(times) + (marked + head if r in table.newer else 0)
             for r, t, head in zip(rows, turns, heads, strict=True)]
    return costs, heads, [t.session_id for t in turns], shorts


def rule_of(data: dict[str, Any]) -> PackingRule:
    """The packing rule as a ranker's file keeps it (``window`` as [turns, carry], ``blend``
    as [weight, slope, intercept]), checked."""
    turns, carry = data.get("window", (0, 0.0))
    blend = data.get("blend", (0.0, 0.0, 0.0))
    rule = PackingRule(gamma=float(data.get("gamma", 0.0)), blend=float(blend[0]),
                       floor=int(data.get("floor", 0)), spread=float(data.get("spread", 1.0)),
                       pairs=int(data.get("pairs", 0)), window=int(turns), carry=float(carry))
    if "cover" in data:  # [share, similar]
        share, similar = data["cover"]
        rule = rule._replace(cover=float(share), similar=float(similar))
    if not 0 < rule.spread <= 1:
        raise ValueError("the spread is not in (0, 1]")
    if rule.pairs < 0:
        raise ValueError("pairs is negative")
    if rule.window < 0 or not 0 <= rule.carry <= 1:
        raise ValueError("the window is not (turns >= 0, carry in [0, 1])")
    if not 0 <= rule.cover <= 1 or not -1 <= rule.similar < 1:
        raise ValueError("cover is not [share in [0, 1], cosine in [-1, 1)]")
    return rule
