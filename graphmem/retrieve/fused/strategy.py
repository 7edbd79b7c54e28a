"""Strategy `graphmem`: every layer's candidates, one learned ranking, packed for the budget.

1. Candidates (:mod:`candidates`): the space's own BM25 and dense search over turns, and each
   layer the space holds (MMS units, EMem statements, CAST scenes, ES-Mem events, EMA units),
   mapped to their source turns, plus the turns either side of each.
2. Features (:mod:`features`): each source's rank and score (the summary scores of scenes,
   events and units among them: ES-Mem's summary rerank generalised), neighbours, salience,
   persons and dates the question names, position, length.
3. One learned ranking (:mod:`ranker`): P(the turn is evidence), then mixed with the P of
   the candidates around it in its session (:mod:`window`: evidence comes in stretches).
4. Packing: turns by P / tokens ** gamma (gamma chosen on held-out conversations when the
   ranker was trained) until the budget is spent, each turn once (a short reply with the
   short turn it answers, when the ranker's ``pairs`` says so); the context shows them
   session by session in time order, the session's day once as a header (``[8 May 2023]``)
   instead of on every line. With ``statements`` (recipe `graphmem-statements`) a turn may be
   shown by its statement nearest the question when that is cheaper (:mod:`statements`).
5. Changed facts: a turn whose fact a later turn changed (the episodes layer's
   ``SUPERSEDED_BY``) is marked "(changed later)" and, when the later turn is shown too, put
   right after it, so the newest value is read first (:func:`reading_order`).

Only the space's own data enters any score, so a tenant's ranking does not move when another
tenant adds data.

The space's turn table is held in the client. A space larger than
``GRAPHMEM_CLIENT_TABLE_MAX_TURNS`` (200,000) would take minutes to read at its first search
and at every search after it changes, so it is served by the `turns` strategy in Neo4j
instead, with a warning (logger ``graphmem``) the first time for each space.
"""

from __future__ import annotations

import heapq
import logging
from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np

from graphmem.models import Hit
from graphmem.retrieve.base import RetrievalContext, SpaceState, Strategy
from graphmem.retrieve.fused.candidates import OPTIONAL_LAYERS, Pools, gather, question_extras
from graphmem.retrieve.fused.features import FEATURES, analyse, candidate_rows, matrix
from graphmem.retrieve.fused.ranker import load_ranker
from graphmem.retrieve.fused.space_index import SpaceTurns, TurnRow, space_turns, tokenize
from graphmem.retrieve.fused.statements import Statement, turn_statements
from graphmem.retrieve.fused.window import along
from graphmem.retrieve.packing import count_tokens
from graphmem.retrieve.turns import TurnSearch, TurnSearchConfig
from graphmem.telemetry import stage
from graphmem.text import format_date

log = logging.getLogger("graphmem")
QUIET = FEATURES.index("says_nothing")  # the column marking small talk
CHANGED = " (changed later)"  # ends a line whose fact a later turn changed
Chosen = tuple[int, float, "Statement | None"]  # a table row, its P, its statement if shown
_WARNED: set[str] = set()  # spaces already reported too large, in this process


@dataclass(frozen=True)
class FusedConfig:
    sources: tuple[str, ...] | None = None  # None: every source the space can feed
    model: str | None = None  # a ranker file; None: the shipped one
    gamma: float | None = None  # None: the ranker's own
    headers: bool = True  # one date header per session; False: the day on every line
    statements: bool = False  # True: a turn may be shown by its statement nearest the question
    parts: bool = True  # a question about several people or things also asked of each
    pools: Pools = field(default_factory=Pools)


def warm_up() -> None:
    """Load what the strategy's first search would: bm25s with its stop words and stemmer,
    and the shipped ranker (LightGBM for the trees)."""
    tokenize(["warm up"])
    load_ranker().probabilities(np.zeros((1, len(FEATURES)), dtype=np.float32))


def header(turn: TurnRow) -> str:
    """A session's header line: its day, else the date as the input wrote it."""
    text = format_date(turn.started_at) or turn.date_text or ""
    return f"[{text}]" if text else ""


def select(costs: list[int], heads: list[int], sessions: list[str], p: np.ndarray,
           budget: int, gamma: float, headers: bool = True,
           shorts: list[int | None] | None = None, floor: int = 0,
           spread: float = 1.0, quiet: np.ndarray | None = None,
           before: list[int] | None = None, pairs: int = 0) -> list[tuple[int, bool]]:
    """Which candidates to show within ``budget``, and whether whole (True) or by their
    statement (False), as (candidate, whole) in the order chosen.

    A candidate costs its line, and its session's header once (``headers``) or on every line.
    ``shorts`` gives each candidate's statement cost where a statement is cheaper than the
    line (None elsewhere). Every way of showing a candidate is worth its P: the statement
    covers its turn. The ways go in order of P / max(cost, floor) ** gamma, where the floor
    holds for the candidates ``quiet`` marks (small talk: a greeting is never chosen for
    being cheap), or for every candidate when ``quiet`` is None; a candidate already shown by
    its statement is shown whole instead when its line's turn comes and the budget has room
    for the difference. With ``spread`` below 1 (a question asking for every item of a
    kind), a candidate's worth is multiplied by ``spread`` for each turn of its session
    already shown, so the items said in other sessions get their turn. With ``pairs`` above
    0, a reply of at most ``pairs`` tokens shown whole brings the turn it answers
    (``before``: each candidate's turn before it, as a candidate, -1 for none) when that
    costs at most ``pairs`` too and fits: "Only twice so far" is shown with "Have you been
    to the new climbing gym?"."""
    short = shorts if shorts is not None else [None] * len(costs)
    ways: list[tuple[float, int, int, bool]] = []  # (P per cost, candidate, cost, whole)
    for n, cost in enumerate(costs):
        least = floor if quiet is None or quiet[n] else 1
        ways.append((p[n] / max(1, least, cost) ** gamma, n, cost, True))
        cheaper = short[n]
        if cheaper is not None and cheaper < cost:
            ways.append((p[n] / max(1, least, cheaper) ** gamma, n, cheaper, False))
    opened: set[str] = set()
    taken: dict[str, int] = {}  # session -> candidates shown from it
    used = 0
    shown: dict[int, tuple[int, bool]] = {}  # candidate -> (its line's cost, whole)
    for n, cost, whole in _in_order(ways, sessions, spread, taken):
        if n in shown:
            spent, was_whole = shown[n]
            if whole and not was_whole and used - spent + cost <= budget:
                used += cost - spent
                shown[n] = (cost, True)
            continue
        extra = heads[n] if not headers or sessions[n] not in opened else 0
        if used + cost + extra > budget:
            continue
        used += cost + extra
        opened.add(sessions[n])
        taken[sessions[n]] = taken.get(sessions[n], 0) + 1
        shown[n] = (cost, whole)
        m = before[n] if before and whole and cost <= pairs else -1
        if m >= 0 and m not in shown and costs[m] <= pairs:
            extra = heads[m] if not headers else 0  # its session is open: same session
            if used + costs[m] + extra <= budget:
                used += costs[m] + extra
                taken[sessions[m]] += 1
                shown[m] = (costs[m], True)
    return [(n, whole) for n, (_, whole) in shown.items()]


def turns_before(table: SpaceTurns, rows: list[int]) -> list[int]:
    """Each candidate's turn before it in its session, as a candidate index (-1: none)."""
    at = {r: n for n, r in enumerate(rows)}  # -1 (no turn before) is no row: stays -1
    return [at.get(j, -1) for j in table.neighbours(np.asarray(rows, dtype=np.int64), -1).tolist()]


def _in_order(ways: list[tuple[float, int, int, bool]], sessions: list[str], spread: float,
              taken: dict[str, int]) -> Iterator[tuple[int, int, bool]]:
    """The ways best first; with ``spread`` < 1 each way's worth shrinks by ``spread`` per
    turn of its session shown so far (``taken``, kept by the caller), re-read lazily."""
    if spread >= 1:
        for _, n, cost, whole in sorted(ways, key=lambda w: (-w[0], w[1], not w[3])):
            yield n, cost, whole
        return
    heap = [(-worth, n, not whole, cost, 0) for worth, n, cost, whole in ways]
    heapq.heapify(heap)
    while heap:
        worth, n, part, cost, seen = heapq.heappop(heap)
        now = taken.get(sessions[n], 0)
        if now != seen:  # its session gained turns since: worth less, back in line
            heapq.heappush(heap, (worth * spread ** (now - seen), n, part, cost, now))
            continue
        yield n, cost, not part


def packing_inputs(table: SpaceTurns, rows: list[int],
                   statements: list[Statement | None] | None = None
                   ) -> tuple[list[int], list[int], list[str], list[int | None]]:
    """Each candidate's line cost, header cost, session and statement cost (None without a
    statement), for :func:`select`."""
    turns = [table.rows[r] for r in rows]
    shorts = [None if st is None else st.tokens for st in statements or [None] * len(rows)]
    # a header is its session's (day or date text): counted once per session of the table
    counted: dict[str, int] = table.derived.setdefault("header_tokens", {})
    for t in turns:
        if t.session_id not in counted:
            counted[t.session_id] = count_tokens(header(t))
    heads = [counted[t.session_id] for t in turns]
    marked = count_tokens(CHANGED)  # and its own day, when shown after what changed it
    costs = [t.tokens + (marked + head if r in table.newer else 0)
             for r, t, head in zip(rows, turns, heads, strict=True)]
    return costs, heads, [t.session_id for t in turns], shorts


def reading_order(table: SpaceTurns, chosen: list[Chosen]) -> tuple[list[Chosen], set[int]]:
    """The chosen turns in time order, except that a turn whose fact a later chosen turn
    changed comes right after that turn (the newest value is read first); and the turns so
    moved."""
    shown = {c[0] for c in chosen}
    after = {r: max(later) for r in shown
             if (later := [n for n in table.newer.get(r, ()) if n in shown])}
    seq = [c for c in sorted(chosen, key=lambda c: c[0]) if c[0] not in after]
    for moved in sorted((c for c in chosen if c[0] in after), key=lambda c: -c[0]):
        place = next((i for i, c in enumerate(seq) if c[0] == after[moved[0]]), None)
        if place is None:  # what changed it was moved too, out of reach: keep time order
            place = next((i - 1 for i, c in enumerate(seq) if c[0] > moved[0]), len(seq) - 1)
        seq.insert(place + 1, moved)
    return seq, set(after)


def render(table: SpaceTurns, chosen: list[Chosen], headers: bool = True) -> list[Hit]:
    """The chosen turns (each whole, or by its statement when one is given) as hits in time
    order; the first of each session carries its day. A turn whose fact a later turn changed
    (EMA's ``SUPERSEDED_BY`` between their episodic units) ends in "(changed later)"; when the
    later turn is shown too, the earlier one follows it, with its own day."""
    hits: list[Hit] = []
    last = None
    seq, moved = reading_order(table, chosen)
    for r, prob, statement in seq:
        turn = table.rows[r]
        top = header(turn)
        line = turn.line if statement is None else statement.line
        line += CHANGED if r in table.newer else ""
        if headers and r not in moved:
            text = f"{top}\n{line}" if top and turn.session_id != last else line
            last = turn.session_id
        else:
            text = f"{top} {line}" if top else line
        hits.append(Hit(id=turn.id if statement is None else statement.id,
                        kind="turn" if statement is None else "edu", score=prob, text=text,
                        source_turn_ids=[turn.id], source_ids=[turn.source_id],
                        session_id=turn.session_id, started_at=turn.started_at,
                        date_text=turn.date_text, speaker=turn.speaker))
    return hits


class FusedSearch(Strategy[FusedConfig]):
    needs = ("turns",)
    uses = OPTIONAL_LAYERS
    config_type = FusedConfig

    def retrieve(self, ctx: RetrievalContext, state: SpaceState, budget: int) -> list[Hit]:
        c = self.config
        limit = ctx.store.settings.client_table_max_turns
        if state.turns > limit:
            if state.space not in _WARNED:
                _WARNED.add(state.space)
                log.warning("space %r holds %d turns, more than GRAPHMEM_CLIENT_TABLE_MAX_TURNS "
                            "(%d): strategy graphmem serves it as `turns` (in Neo4j)",
                            state.space, state.turns, limit)
            return TurnSearch("turns", TurnSearchConfig()).retrieve(ctx, state, budget)
        ranker = load_ranker(c.model)
        with stage("table"):
            table = space_turns(ctx.store, state, ctx.caches)
        with stage("question"):
            asked = analyse(ctx.query, table.latest)
            # the question's vector, with its parts' and its kind's in the same batch
            ctx.query.embed_with(question_extras(ctx.query.doc) if c.parts else ())
        with stage("candidates"):
            signals = gather(ctx, state, table, c.pools.scaled(budget), c.sources, c.parts)
            rows = candidate_rows(table, signals)
        with stage("ranking", candidates=len(rows)):
            x = matrix(table, signals, asked, rows)
            p = ranker.probabilities(x)
        with stage("packing"):
            gamma = ranker.gamma if c.gamma is None else c.gamma
            statements = (turn_statements(ctx, state, table, rows, signals.held)
                          if c.statements else None)
            costs, heads, sessions, shorts = packing_inputs(table, rows, statements)
            p = along(p, rows, sessions, *ranker.window)
            chosen = select(costs, heads, sessions, p, budget, gamma, c.headers, shorts,
                            ranker.floor, ranker.spread if asked.listing else 1.0,
                            x[:, QUIET] > 0,
                            turns_before(table, rows) if ranker.pairs else None, ranker.pairs)
            return render(table, [(rows[n], float(p[n]), None if whole or statements is None
                                   else statements[n]) for n, whole in chosen], c.headers)
