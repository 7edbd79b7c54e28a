"""EMA's self-update on LongMemEval's knowledge-update questions, LLM-free.

    python benchmarks/ema_updates.py [--data longmemeval_oracle_dev.json] [--budget 1000] \
        [--out ema_updates.json]   # the default layers (GRAPHMEM_INGEST_LAYERS) hold episodes

A knowledge-update question asks for the current value of a fact that changed: the old value
was said in an earlier answer session, the new one (the turns marked ``has_answer``) in the
latest. For each such question, on the eval spaces of the current settings (cached like every
eval space), this counts:

- caught: some unit from an earlier answer session is ``SUPERSEDED_BY`` a unit holding the
  new evidence;
- newest first: in the packed context of each strategy, of the lines that come from the
  answer sessions, the first one holds the new evidence (what an answer should read first);
- latest ahead: the new evidence is in the context ahead of the old evidence (the evidence
  turns of the earlier answer sessions), or without it (a strategy that shows lines in time
  order, as `graphmem` does, is judged by this one);
- the supersessions the layer made in the space (all units, not only evidence).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from common import ROOT, make_parser

from graphmem.client import Memory
from graphmem.config import Settings
from graphmem.eval.datasets import longmemeval_questions
from graphmem.eval.runner import ingest_spaces
from graphmem.retrieve.ema import EMASearch
from graphmem.retrieve.packing import pack
from graphmem.retrieve.registry import Recipe, register

STRATEGIES = ("turns", "graphmem", "ema", "ema-fill", "ema, superseded kept in place")


def earlier(ids: list[str], sessions: list[str]) -> bool:
    return any(i.split("#")[0] in sessions for i in ids)


def caught(memory: Memory, space: str, old: list[str], new: set[str]) -> tuple[bool, int]:
    with memory.store.driver.session(database=memory.store.database) as session:
        rows = session.run("""
            MATCH (a:Episode {space: $space})-[:SUPERSEDED_BY]->(b:Episode)
            RETURN a.source_ids AS old, b.source_ids AS new""", space=space).data()
    hit = any(earlier(r["old"], old) and set(r["new"]) & new for r in rows)
    return hit, len(rows)


def main() -> None:
    parser = make_parser(__doc__)
    parser.add_argument("--data", type=Path, default=ROOT.parent
                        / "shared/data/longmemeval/longmemeval_oracle_dev.json")
    parser.add_argument("--budget", type=int, default=1000)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    register(STRATEGIES[-1], Recipe(EMASearch, {"superseded": "keep"}, "no reordering"))
    memory = Memory(Settings())
    questions = [q for q in longmemeval_questions(args.data)
                 if q.category == "knowledge-update" and q.evidence]
    spaces, _ = ingest_spaces(memory, "longmemeval", args.data,
                              {q.conversation for q in questions}, progress=True)
    rows: list[dict[str, Any]] = []
    for q in questions:
        order = list(q.extra["answer_sessions"])  # in time order, as the file gives them
        new = {s for s in q.evidence if s.split("#")[0] == order[-1]}
        old = order[:-1]
        stale = {s for s in q.evidence if s.split("#")[0] in old}
        if not old or not new:
            continue  # nothing said before, or no evidence in the latest session
        space = spaces[q.conversation]
        was_caught, made = caught(memory, space, old, new)
        row: dict[str, Any] = {"question": q.conversation, "caught": was_caught,
                               "supersessions": made}
        for name in STRATEGIES:
            result = memory.search(q.question, space=space, strategy=name, budget=args.budget)
            packed = pack(result.hits, args.budget)
            shown = [h for h in result.hits if h.id in set(packed.included)]
            first = next((h for h in shown if set(h.source_ids) & new
                          or earlier(h.source_ids, old)), None)
            row[name] = None if first is None else bool(set(first.source_ids) & new)
            lines = [set(h.source_ids) for h in shown]
            at_new = next((i for i, ids in enumerate(lines) if ids & new), None)
            at_old = next((i for i, ids in enumerate(lines) if ids & stale), len(lines))
            row[f"{name}: latest ahead"] = at_new is not None and at_new < at_old
        rows.append(row)
    n = len(rows)
    summary: dict[str, Any] = {
        "questions": n, "budget": args.budget,
        "caught": round(sum(r["caught"] for r in rows) / max(1, n), 3),
        "supersessions_per_space": round(sum(r["supersessions"] for r in rows) / max(1, n), 2),
        "newest_first": {name: round(sum(bool(r[name]) for r in rows) / max(1, n), 3)
                         for name in STRATEGIES},
        "latest_ahead": {name: round(sum(r[f"{name}: latest ahead"] for r in rows)
                                     / max(1, n), 3) for name in STRATEGIES},
        "evidence_shown": {name: round(sum(r[name] is not None for r in rows) / max(1, n), 3)
                           for name in STRATEGIES}}
    print(json.dumps(summary, indent=1))
    if args.out:
        args.out.write_text(json.dumps({"summary": summary, "rows": rows}, indent=1) + "\n")


if __name__ == "__main__":
    main()
