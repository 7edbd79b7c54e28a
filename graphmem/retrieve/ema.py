"""Strategies `ema` and `ema-fill` (seed 003): EMA's Caller over the episodic memory units.

The question, with the named entities spaCy finds in it appended, is embedded and matched
against each unit's representation (its tags, summary and the tags of its links). Units a
reorganisation merged into another are left out. A unit shows its day, its content, its
importance (MemDecider's score) and its confidence.

Superseded units (a later unit changed their fact) are shown after the unit that replaced
them, and so are the first to fall out when the budget is tight: the replacement takes the
superseded unit's place in the ranking (fetched when it was not retrieved itself), the older
unit follows it, marked as replaced. ``superseded="drop"`` leaves them out; ``"keep"`` leaves
them where they rank (marked), which measures what the reordering adds.

`ema` keeps the ``k`` = 10 nearest units; `ema-fill` (ours) asks for enough to fill the budget
and leaves importance and confidence out of the text, so the budget goes to what was said.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from graphmem.models import Hit
from graphmem.providers.embedder import query_vectors
from graphmem.retrieve.base import Query, RetrievalContext, SpaceState, Strategy, hits_for
from graphmem.text import format_date, native_datetime


@dataclass(frozen=True)
class EMAConfig:
    k: int | None = 10  # units retrieved; None: enough to fill the budget
    entities: bool = True  # the Caller's NER expansion of the question
    superseded: Literal["after", "drop", "keep"] = "after"  # keep: where it ranks, marked
    annotate: bool = True  # show importance and confidence (the paper's context does)
    tokens_per_unit: int = 25  # sizes the list from the budget when k is None
    max_units: int = 200
    oversample: float = 1.5


def caller_query(query: Query) -> str:
    """The question with its named entities appended (EMA's structured query)."""
    return f"{query.text} {' '.join(query.entities)}" if query.entities else query.text


def render(row: dict[str, Any], annotate: bool = True) -> str:
    day = format_date(native_datetime(row.get("started_at")))
    notes = ([f"importance {row['importance']:.2f}, confidence {row['confidence']:.2f}"]
             if annotate else [])
    if row.get("superseded_by"):
        later = format_date(native_datetime(row.get("superseded_at")))
        notes.append(f"replaced {'on ' + later if later else 'later'}")
    head = f"[{day}] " if day else ""
    return f"{head}{row['content']}" + (f" ({'; '.join(notes)})" if notes else "")


def order(rows: list[dict[str, Any]], replacements: dict[str, dict[str, Any]],
          superseded: str) -> list[dict[str, Any]]:
    """Rows with each superseded one moved behind what replaced it (or dropped, or kept where
    it ranks with ``superseded="keep"``)."""
    if superseded == "keep":
        return rows
    out: list[dict[str, Any]] = []
    placed: set[str] = set()
    for row in rows:
        newer = row.get("superseded_by")
        if not newer:
            if row["id"] not in placed:
                out.append(row)
                placed.add(row["id"])
            continue
        if newer not in placed and newer in replacements:
            out.append({**replacements[newer], "score": row["score"]})
            placed.add(newer)
        if superseded == "after" and row["id"] not in placed:
            out.append(row)
            placed.add(row["id"])
    return out


class EMASearch(Strategy[EMAConfig]):
    needs = ("turns", "episodes")
    config_type = EMAConfig

    def retrieve(self, ctx: RetrievalContext, state: SpaceState, budget: int) -> list[Hit]:
        c = self.config
        k = c.k if c.k is not None else hits_for(budget, c.tokens_per_unit, 10, c.max_units)
        plan = state.vector(k, c.oversample)
        if plan is None:
            return []
        text = caller_query(ctx.query) if c.entities else ctx.query.text
        embedding = (ctx.query.embedding if text == ctx.query.text
                     else [float(x) for x in query_vectors(ctx.embedder, [text])[0]])
        rows = ctx.store.read("retrieve/episodes_vector", space=state.space,
                              embedding=embedding, k=k, **plan)
        wanted = sorted({r["superseded_by"] for r in rows if r.get("superseded_by")}
                        - {r["id"] for r in rows})
        replacements = {r["id"]: r for r in rows}
        if wanted:
            for row in ctx.store.read("retrieve/episodes_by_id", space=state.space, ids=wanted,
                                      embedding=embedding):
                replacements[row["id"]] = row
        return [self._hit(row) for row in order(rows, replacements, c.superseded)]

    def _hit(self, row: dict[str, Any]) -> Hit:
        turns = row["turns"]
        return Hit(id=row["id"], kind="memory", score=float(row["score"]),
                   text=render(row, self.config.annotate),
                   source_turn_ids=[t["id"] for t in turns],
                   source_ids=[t["source_id"] for t in turns], session_id=row["session_id"],
                   started_at=native_datetime(row.get("started_at")),
                   date_text=row.get("date_text"), speaker=row["speaker"])
