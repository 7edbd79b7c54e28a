"""Strategy `graphmem`: every layer's candidates, one learned ranking, packed for the budget.

The steps are :mod:`pipeline`'s, which the ranker's training runs too:

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

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from graphmem.models import Hit
from graphmem.retrieve.base import RANKING, RetrievalContext, SpaceState, Strategy
from graphmem.retrieve.fused.candidates import optional_layers
from graphmem.retrieve.fused.explain import explain
from graphmem.retrieve.fused.features import FEATURES, SOURCES
from graphmem.retrieve.fused.pipeline import (
    CHANGED,
    Placed,
    candidates,
    header,
    select,
    shaped,
)
from graphmem.retrieve.fused.ranker import load_ranker
from graphmem.retrieve.fused.rerank import reranked
from graphmem.retrieve.fused.sources import Pools
from graphmem.retrieve.fused.space_index import SpaceTurns, space_turns, tokenize
from graphmem.retrieve.fused.statements import Statement
from graphmem.retrieve.packing import Packed, count_tokens, pack
from graphmem.retrieve.turns import TurnSearch, TurnSearchConfig
from graphmem.telemetry import stage

log = logging.getLogger("graphmem")
Chosen = tuple[int, float, "Statement | None"]  # a table row, its P, its statement if shown
_WARNED: set[str] = set()  # spaces already reported too large, in this process


@dataclass(frozen=True)
class FusedConfig:
    # None: every source of graphmem's the space can feed, and the plug-ins' the ranker reads
    sources: tuple[str, ...] | None = None
    model: str | None = None  # a ranker file; None: GRAPHMEM_RANKER, else the shipped one
    gamma: float | None = None  # None: the ranker's own
    headers: bool = True  # one date header per session; False: the day on every line
    times: bool = True  # a line ends with what its relative times meant (retrieve/times.py)
    statements: bool = False  # True: a turn may be shown by its statement nearest the question
    parts: bool = True  # a question about several people or things also asked of each
    pools: Pools = field(default_factory=Pools)
    # > 0: with an LLM configured, it reads this many best candidates once and the ones it
    # marks as the answer's go first (graphmem-llm); 0: the ranker's order alone
    rerank: int = 0


def warm_up() -> None:
    """Load what the strategy's first search would: bm25s with its stop words and stemmer,
    and the shipped ranker (LightGBM for the trees)."""
    tokenize(["warm up"])
    load_ranker().probabilities(np.zeros((1, len(FEATURES)), dtype=np.float32))


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


def render(table: SpaceTurns, chosen: list[Chosen], headers: bool = True,
           times: bool = True) -> list[Hit]:
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
        line = turn.shown(times) if statement is None else statement.line
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
    config_type = FusedConfig

    @classmethod
    def layers_used(cls) -> tuple[str, ...]:
        return optional_layers()  # every source's layer, a plug-in's included

    def pack(self, hits: Sequence[Hit], budget: int) -> Packed:
        """Its hits are what its own packing chose for ``budget`` (each line and session
        header counted), in reading order: the context is all of them, as they are."""
        text = "\n".join(h.text for h in hits)
        return Packed(text, [h.id for h in hits], count_tokens(text))

    def retrieve(self, ctx: RetrievalContext, state: SpaceState, budget: int) -> list[Hit]:
        c = self.config
        limit = ctx.store.settings.client_table_max_turns
        if state.turns > limit:
            if state.space not in _WARNED:
                _WARNED.add(state.space)
                log.warning("space %r holds %d turns, more than GRAPHMEM_CLIENT_TABLE_MAX_TURNS "
                            "(%d): strategy graphmem serves it as `turns` (in Neo4j)",
                            state.space, state.turns, limit)
            ranked = TurnSearch("turns", TurnSearchConfig()).retrieve(ctx, state, budget)
            kept = set(pack(ranked, budget).included)  # packed as `turns` packs
            return [h for h in ranked if h.id in kept]
        model = c.model or ctx.store.settings.ranker
        ranker = load_ranker(str(model) if model else None)
        use = c.sources if c.sources is not None else (*SOURCES, *ranker.plugin_sources)
        rule = ranker.rule if c.gamma is None else ranker.rule._replace(gamma=c.gamma)
        with stage("table"):
            table = space_turns(ctx.store, state, ctx.caches)
        found = candidates(ctx, state, table, c.pools.scaled(budget), use, c.parts,
                           c.statements, c.times)
        with stage("ranking", candidates=len(found.rows)):
            learned = ranker.probabilities(found.x)
            p = shaped(learned, found, rule)
        if c.rerank and ctx.llm is not None:
            with stage("rerank"):
                p = reranked(ctx, table, found.rows, p, c.rerank)
        sink = RANKING.get()
        if sink is not None:
            sink.append([[table.rows[found.rows[n]].source_id]
                         for n in np.argsort(-p, kind="stable").tolist()])
        trace: dict[int, Placed] | None = {} if ctx.explaining is not None else None
        with stage("packing"):
            chosen = select(found, p, budget, rule, c.headers, c.statements, trace)
            statements = found.statements
            picked = [(found.rows[n], float(p[n]),
                       None if whole or statements is None else statements[n])
                      for n, whole in chosen]
            hits = render(table, picked, c.headers, c.times)
        if ctx.explaining is None or trace is None:
            return hits
        with stage("explain"):
            return explain(ctx.explaining, hits, found, learned, p, trace, ranker, rule,
                           budget, reading_order(table, picked)[1])
