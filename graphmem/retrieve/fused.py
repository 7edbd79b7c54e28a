"""Strategy `graphmem`: every layer's candidates, one learned ranking, packed for the budget.

1. Candidates (:mod:`candidates`): the space's own BM25 and dense search over turns, and each
   layer the space holds (MMS units, EMem statements, CAST scenes, ES-Mem events, EMA units),
   mapped to their source turns, plus the turns either side of each.
2. Features (:mod:`features`): each source's rank and score (the summary scores of scenes,
   events and units among them: ES-Mem's summary rerank generalised), neighbours, salience,
   persons and dates the question names, position, length.
3. One learned ranking (:mod:`ranker`): P(the turn is evidence).
4. Packing: turns by P / tokens ** gamma (gamma chosen on held-out conversations when the
   ranker was trained) until the budget is spent, each turn once; the context shows them
   session by session in time order, the session's day once as a header (``[8 May 2023]``)
   instead of on every line.

Only the space's own data enters any score, so a tenant's ranking does not move when another
tenant adds data.

The space's turn table is held in the client. A space larger than
``GRAPHMEM_CLIENT_TABLE_MAX_TURNS`` (200,000) would take minutes to read at its first search
and at every search after it changes, so it is served by the `turns` strategy in Neo4j
instead, with a warning (logger ``graphmem``) the first time for each space.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

import numpy as np

from graphmem.models import Hit
from graphmem.retrieve.base import RetrievalContext, SpaceState, Strategy
from graphmem.retrieve.candidates import OPTIONAL_LAYERS, Pools, gather
from graphmem.retrieve.features import analyse, candidate_rows, matrix
from graphmem.retrieve.packing import count_tokens
from graphmem.retrieve.ranker import load_ranker
from graphmem.retrieve.space_index import SpaceTurns, TurnRow, space_turns
from graphmem.retrieve.turns import TurnSearch, TurnSearchConfig
from graphmem.text import format_date

log = logging.getLogger("graphmem")
_WARNED: set[str] = set()  # spaces already reported too large, in this process


@dataclass(frozen=True)
class FusedConfig:
    sources: tuple[str, ...] | None = None  # None: every source the space can feed
    model: str | None = None  # a ranker file; None: the shipped one
    gamma: float | None = None  # None: the ranker's own
    headers: bool = True  # one date header per session; False: the day on every line
    pools: Pools = field(default_factory=Pools)


def header(turn: TurnRow) -> str:
    """A session's header line: its day, else the date as the input wrote it."""
    text = format_date(turn.started_at) or turn.date_text or ""
    return f"[{text}]" if text else ""


def select(costs: list[int], heads: list[int], sessions: list[str], p: np.ndarray,
           budget: int, gamma: float, headers: bool = True) -> list[int]:
    """Which candidates to show within ``budget``, by P / tokens ** gamma: a candidate costs
    its line, and its session's header once (``headers``) or on every line."""
    order = sorted(range(len(costs)), key=lambda n: (-p[n] / max(1, costs[n]) ** gamma, n))
    opened: set[str] = set()
    used = 0
    chosen: list[int] = []
    for n in order:
        extra = heads[n] if not headers or sessions[n] not in opened else 0
        if used + costs[n] + extra > budget:
            continue
        used += costs[n] + extra
        opened.add(sessions[n])
        chosen.append(n)
    return chosen


def packing_inputs(table: SpaceTurns, rows: list[int]) -> tuple[list[int], list[int], list[str]]:
    """Each candidate's line cost, header cost and session, for :func:`select`."""
    turns = [table.rows[r] for r in rows]
    return ([t.tokens for t in turns], [count_tokens(header(t)) for t in turns],
            [t.session_id for t in turns])


def render(table: SpaceTurns, chosen: list[tuple[int, float]], headers: bool = True) -> list[Hit]:
    """The chosen turns as hits in time order; the first of each session carries its day."""
    hits: list[Hit] = []
    last = None
    for r, prob in sorted(chosen, key=lambda c: c[0]):
        turn = table.rows[r]
        top = header(turn)
        if headers:
            text = f"{top}\n{turn.line}" if top and turn.session_id != last else turn.line
        else:
            text = f"{top} {turn.line}" if top else turn.line
        last = turn.session_id
        hits.append(Hit(id=turn.id, kind="turn", score=prob, text=text,
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
        table = space_turns(ctx.store, state)
        signals = gather(ctx, state, table, c.pools.scaled(budget), c.sources)
        rows = candidate_rows(table, signals)
        p = ranker.probabilities(matrix(table, signals, analyse(ctx.query), rows))
        gamma = ranker.gamma if c.gamma is None else c.gamma
        chosen = select(*packing_inputs(table, rows), p, budget, gamma, c.headers)
        return render(table, [(rows[n], float(p[n])) for n in chosen], c.headers)
