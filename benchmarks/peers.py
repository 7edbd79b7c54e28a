"""Other memory systems' retrieval beside graphmem's, on the same dev questions and budgets
(issue 87), each peer run without its LLM, offline, in a virtualenv of its own:

- **Mem0** (`mem0ai==2.2.1`): each turn added with ``infer=False`` (stored as given, no LLM
  extraction), a local on-disk Qdrant, its HuggingFace embedder on the same all-MiniLM-L6-v2
  graphmem ships (read from the installed package's folder); searched with its own ranking.
  Its BM25 needs fastembed's ``Qdrant/bm25`` model and its entity boost spaCy's
  ``en_core_web_sm``, both fetched from the network at run time: offline they stay off, so
  what runs is its dense search and scoring.
- **neo4j-agent-memory** (`neo4j-agent-memory[sentence-transformers]==0.8.0`): its documented
  LLM-free set-up (``llm=None``, no extractor) with the same MiniLM, against a Neo4j 5.26 of
  its own that this script starts beside the project's (GRAPHMEM_HOME/peers/neo4j, Bolt 7697);
  each turn a short-term message, each question its message search.

Left out, for both: whatever the peer does with an LLM (Mem0's fact extraction and updates,
neo4j-agent-memory's entity and relation extraction), so this is "retrieval without the
peer's LLM". Each peer stores the line graphmem's turns layer embeds (``speaker: text``); its
ranking of turns is packed under docs/evaluation.md's contract (each turn rendered as
`turns` renders it, with its day, by rank, skipping what does not fit), and scored by the
same evidence and answer recall as `graphmem eval`; `graphmem` and `turns` are measured in
the same run on the same questions (through `graphmem eval`'s runner and spaces).

Install (once; the script does it when a peer's virtualenv is missing, minutes: PyTorch):

    python -m venv ~/.graphmem/peers/mem0 && ~/.graphmem/peers/mem0/bin/pip install \\
        'mem0ai==2.2.1' 'sentence-transformers>=3'
    python -m venv ~/.graphmem/peers/nam && ~/.graphmem/peers/nam/bin/pip install \\
        'neo4j-agent-memory[sentence-transformers]==0.8.0'

Not part of the test suite (it needs both installs). Usage:

    python benchmarks/peers.py [--dataset locomo] [--data FILE] [--limit N] [--conversations N]
        [--peers mem0,neo4j-agent-memory] [--budgets 500,1000,2000] [--out peers.json]
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from common import LOCOMO, ROOT, make_parser, publish

from graphmem import Memory
from graphmem.config import Settings
from graphmem.eval.datasets import Question
from graphmem.eval.metrics import answer_recall, answer_words, covered_turns, percentile
from graphmem.eval.runner import Dataset, EvalOptions, load_questions, pick, run_retrieval_eval
from graphmem.ingest.inputs.loaders import parse_file
from graphmem.models import Hit
from graphmem.neo4j_server.local import LocalNeo4j
from graphmem.providers.embedder import packaged_minilm_path
from graphmem.retrieve.packing import pack
from graphmem.text import render_turn, turn_line

HERE = Path(__file__).resolve().parent
TOP_K = 100  # more turns than 2,000 tokens hold


@dataclass(frozen=True)
class Peer:
    folder: str  # its virtualenv under GRAPHMEM_HOME/peers
    requirements: tuple[str, ...]
    script: str
    neo4j: bool = False


PEERS = {
    "mem0": Peer("mem0", ("mem0ai==2.2.1", "sentence-transformers>=3"), "mem0_run.py"),
    "neo4j-agent-memory": Peer("nam", ("neo4j-agent-memory[sentence-transformers]==0.8.0",),
                               "nam_run.py", neo4j=True),
}


def venv(peer: Peer, home: Path) -> Path:
    """The peer's interpreter, its virtualenv made and filled first when missing."""
    folder = home / "peers" / peer.folder
    python = folder / "bin" / "python"
    if not (folder / ".installed").exists():
        subprocess.run([sys.executable, "-m", "venv", str(folder)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", *peer.requirements],
                       check=True)
        (folder / ".installed").write_text("\n".join(peer.requirements))
    return python


def peer_neo4j(home: Path) -> dict[str, str]:
    """A Neo4j of the peers' own (started when it is not running), as the worker reaches it."""
    settings = Settings(home=home / "peers" / "neo4j-home", neo4j_uri="bolt://127.0.0.1:7697",
                        neo4j_http_port=7484)
    LocalNeo4j(settings).start()
    return {"uri": settings.neo4j_uri, "user": settings.neo4j_user,
            "password": settings.neo4j_password.get_secret_value()}


def conversations(dataset: Dataset, data: Path, keys: set[str]) -> dict[str, list[dict[str, Any]]]:
    """Each conversation's turns: the id evidence names, the line a peer stores, the line a
    context shows."""
    out: dict[str, list[dict[str, Any]]] = {}
    for c in parse_file(data, dataset, bad_turns="skip").conversations:
        if c.key in keys:
            out[c.key] = [{"id": t.source_id, "speaker": t.speaker,
                           "content": turn_line(t.speaker, t.text, t.image_caption),
                           "shown": render_turn(t.speaker, t.text, s.started_at,
                                                t.image_caption)}
                          for s in c.sessions for t in s.turns]
    return out


def run_peer(name: str, questions: list[Question], turns: dict[str, list[dict[str, Any]]],
             home: Path, store: Path) -> dict[str, Any]:
    peer = PEERS[name]
    python = venv(peer, home)
    store.mkdir(parents=True, exist_ok=True)
    job = {"conversations": {k: [{"id": t["id"], "speaker": t["speaker"],
                                  "content": t["content"]} for t in v]
                             for k, v in turns.items()},
           "questions": [{"qid": str(i), "conversation": q.conversation,
                          "question": q.question} for i, q in enumerate(questions)],
           "model": str(packaged_minilm_path()), "dims": 384, "top_k": TOP_K,
           "store": str(store), **({"neo4j": peer_neo4j(home)} if peer.neo4j else {})}
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
           "MEM0_TELEMETRY": "False", "PYTHONPATH": ""}
    done = subprocess.run([str(python), str(HERE / "peers" / peer.script)],
                          input=json.dumps(job), capture_output=True, text=True, env=env)
    shutil.rmtree(store, ignore_errors=True)  # a fresh store each run
    if done.returncode != 0:
        raise SystemExit(f"{name} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def score(questions: list[Question], rankings: dict[str, list[str]],
          turns: dict[str, list[dict[str, Any]]], budgets: list[int]) -> dict[str, Any]:
    """A ranking of turn ids per question, packed and scored as `graphmem eval` scores."""
    recall: dict[int, list[float]] = defaultdict(list)
    answers: dict[int, list[float]] = defaultdict(list)
    tokens: dict[int, list[int]] = defaultdict(list)
    by_cat: dict[str, dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
    ans_cat: dict[str, dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
    for i, q in enumerate(questions):
        shown = {t["id"]: t["shown"] for t in turns[q.conversation]}
        hits = [Hit(id=tid, kind="turn", text=shown[tid], score=float(-n),
                    source_turn_ids=[tid], source_ids=[tid])
                for n, tid in enumerate(dict.fromkeys(rankings.get(str(i), [])))
                if tid in shown]
        words = answer_words(q.answer, q.question)
        for b in budgets:
            packed = pack(hits, b)
            chosen = set(packed.included)
            tokens[b].append(packed.tokens)
            if q.evidence:
                got = covered_turns([h for h in hits if h.id in chosen], packed.context,
                                    q.evidence)
                recall[b].append(len(got) / len(q.evidence))
                by_cat[q.category][b].append(len(got) / len(q.evidence))
            if words:
                answers[b].append(answer_recall(packed.context, words))
                ans_cat[q.category][b].append(answers[b][-1])

    def mean(values: list[float]) -> float | None:
        return round(statistics.fmean(values), 4) if values else None
    return {"n_questions": len(questions),
            "evidence_recall": {str(b): mean(recall[b]) for b in budgets},
            "evidence_recall_by_category": {c: {str(b): mean(v[b]) for b in budgets}
                                            for c, v in sorted(by_cat.items())},
            "answer_recall": {str(b): mean(answers[b]) for b in budgets},
            "answer_recall_by_category": {c: {str(b): mean(v[b]) for b in budgets}
                                          for c, v in sorted(ans_cat.items())},
            "context_tokens_mean_by_budget": {str(b): mean([float(t) for t in tokens[b]])
                                              for b in budgets}}


def main() -> None:
    parser = make_parser(__doc__)
    parser.add_argument("--dataset", default="locomo", choices=["locomo", "longmemeval"])
    parser.add_argument("--data", type=Path, default=LOCOMO)
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--conversations", type=int, default=None)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--peers", default=",".join(PEERS))
    parser.add_argument("--budgets", default="500,1000,2000")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks/out/peers.json")
    parser.add_argument("--note", default="", help="a line under the table's heading (how the "
                        "machine was loaded, say)")
    args = parser.parse_args()
    dataset: Dataset = args.dataset
    budgets = [int(b) for b in args.budgets.split(",")]
    names = [n.strip() for n in args.peers.split(",") if n.strip()]
    unknown = sorted(set(names) - set(PEERS))
    if unknown:
        raise SystemExit(f"unknown peers {unknown}; known: {', '.join(PEERS)}")
    home = Settings().home
    with Memory(progress=True) as memory:
        ours = run_retrieval_eval(memory, dataset, args.data, EvalOptions(
            strategies=("graphmem", "turns"), budgets=budgets, limit=args.limit,
            seed=args.seed, conversations=args.conversations))
    questions = pick(load_questions(dataset, args.data), args.limit, args.seed,
                     args.conversations)
    turns = conversations(dataset, args.data, {q.conversation for q in questions})
    systems: dict[str, Any] = {
        name: {k: entry[k] for k in ("n_questions", "evidence_recall",
                                     "evidence_recall_by_category", "answer_recall",
                                     "answer_recall_by_category", "latency_ms",
                                     "context_tokens_mean_by_budget")}
        for name, entry in ours["strategies"].items()}
    for name in names:
        result = run_peer(name, questions, turns, home,
                          home / "peers" / "stores" / f"{name}-{dataset}-{os.getpid()}")
        systems[name] = {**score(questions, result["rankings"], turns, budgets),
                         "version": result["version"],
                         "ingest_seconds": round(result["ingest_seconds"], 1),
                         "latency_ms": {"p50": round(percentile(result["latency_ms"], 50), 1),
                                        "p95": round(percentile(result["latency_ms"], 95), 1)}}
    result = {"dataset": dataset, "data": str(args.data), "limit": args.limit,
              "conversations": args.conversations, "seed": args.seed, "budgets": budgets,
              "systems": systems, "note": args.note}
    publish(result, args.out)
    args.out.with_suffix(".md").write_text(markdown(result))  # docs/results.md takes it


def markdown(result: dict[str, Any]) -> str:
    """The run as docs/results.md shows it: each system's evidence and answer recall at
    every budget, its search p50/p95, and evidence by category at 1,000 tokens."""
    budgets = [str(b) for b in result["budgets"]]
    systems = result["systems"]
    first = next(iter(systems.values()))
    lines = [f"### {result['dataset']}: {Path(result['data']).name} "
             f"({first['n_questions']} questions)", "",
             *([result["note"], ""] if result.get("note") else []),
             "| system | evidence @" + " / ".join(budgets) + " | answers @"
             + " / ".join(budgets) + " | search p50 / p95 ms |", "|---|---|---|---|"]
    for name, entry in systems.items():
        label = f"{name} {entry['version']}" if "version" in entry else f"`{name}`"
        lines.append(
            f"| {label} | " + " / ".join(f"{100 * entry['evidence_recall'][b]:.1f}"
                                          for b in budgets)
            + " | " + " / ".join(f"{100 * entry['answer_recall'][b]:.1f}" for b in budgets)
            + f" | {entry['latency_ms']['p50']} / {entry['latency_ms']['p95']} |")
    cats = sorted(first["evidence_recall_by_category"])
    lines += ["", "| evidence @1000 by category | " + " | ".join(cats) + " |",
              "|---|" + "---|" * len(cats)]
    for name, entry in systems.items():
        by = entry["evidence_recall_by_category"]
        lines.append(f"| {name} | " + " | ".join(
            f"{100 * by[c]['1000']:.1f}" if by.get(c, {}).get("1000") is not None else "-"
            for c in cats) + " |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
