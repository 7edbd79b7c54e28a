"""An LLM reads `graphmem`'s best candidates once and marks those that belong to the answer
(strategy ``graphmem-llm``; issue 51's fourth lever). The marked ones are moved above every
other candidate, keeping the ranker's order among themselves; the rest keep their place.
Without an LLM, or when its reply is unusable, the ranking is the ranker's, unchanged."""

from __future__ import annotations

import logging

import numpy as np

from graphmem.prompts import evidence_rerank
from graphmem.retrieve.base import RetrievalContext
from graphmem.retrieve.fused.pipeline import header
from graphmem.retrieve.fused.space_index import SpaceTurns

log = logging.getLogger("graphmem")
LINE_CHARS = 240  # a long turn is cut for the reader: the prompt stays within small contexts


def marked_first(p: np.ndarray, marked: list[int]) -> np.ndarray:
    """``p`` with the candidates ``marked`` above all others, in their own order: mapped into
    (max p, 1], so packing by evidence per token still compares them among themselves."""
    if not marked:
        return p
    out = p.astype(np.float64, copy=True)
    top = float(p.max())
    chosen = np.array(sorted(set(marked)))
    own = p[chosen] / max(top, 1e-9)
    lift = 1.0 - top if top < 1.0 else 1.0
    out[chosen] = top + lift * (0.5 + 0.5 * own)
    return out.astype(p.dtype, copy=False)


def reranked(ctx: RetrievalContext, table: SpaceTurns, rows: list[int], p: np.ndarray,
             size: int) -> np.ndarray:
    """``p`` after the LLM marked the evidence among the ``size`` best candidates."""
    if ctx.llm is None or size <= 0 or len(rows) == 0:
        return p
    best = np.argsort(-p, kind="stable")[:size].tolist()
    lines = []
    for n in best:
        turn = table.rows[rows[n]]
        line = turn.line if len(turn.line) <= LINE_CHARS else turn.line[:LINE_CHARS] + " ..."
        lines.append(f"{header(turn)} {line}".strip())

    def accept(reply: evidence_rerank.RerankOutput) -> np.ndarray:
        picked = [best[i] for i in reply.evidence if 0 <= i < len(best)]
        if reply.evidence and not picked:
            raise ValueError(f"numbers {reply.evidence} name no message of {len(best)}")
        # which turns the reader moved up, by input id only (never their text): what a
        # study of the reader needs, and nothing of the conversation in the log
        log.debug("graphmem-llm: the LLM marked %d of the %d candidates it read: %s",
                  len(picked), len(best), [table.rows[rows[n]].source_id for n in picked])
        return marked_first(p, picked)

    return evidence_rerank.STEP.run(
        ctx.llm, lambda: evidence_rerank.messages(ctx.query.text, lines),
        accept=accept, fallback=lambda: p, where="graphmem-llm rerank")
