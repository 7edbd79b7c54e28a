"""Run strategies over a dataset's questions and measure them the same way every time.

The JSON this module produces is a contract (see docs/evaluation.md): keep its keys.
"""

from __future__ import annotations

import hashlib
import json
import random
import statistics
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TypeVar
from urllib.parse import unquote

from tqdm import tqdm

from graphmem.client import Memory
from graphmem.errors import InputError
from graphmem.eval.datasets import Question, locomo_questions, longmemeval_questions
from graphmem.eval.diagnosis import LossTally
from graphmem.eval.metrics import answer_recall, answer_words, covered_turns, percentile
from graphmem.eval.qa import QAScorer
from graphmem.ingest.inputs.loaders import parse_file
from graphmem.ingest.layers import LAYERS, parse_names
from graphmem.models import ConversationRecord, Hit, IngestReport, SearchResult
from graphmem.retrieve.base import RANKING
from graphmem.retrieve.registry import parse_spec

Dataset = Literal["locomo", "longmemeval"]
T = TypeVar("T")
INGEST_VERSION = "layers-5"  # bump when ingestion writes something new that strategies need


@dataclass(frozen=True)
class EvalOptions:
    strategies: Sequence[str] = ("turns",)
    budgets: Sequence[int] = (500, 1000, 2000)
    limit: int | None = None
    seed: int = 0
    conversations: int | None = None  # a sample of N whole conversations
    categories: Sequence[str] = ()  # only questions of these categories (all when empty)
    llm: bool = False
    qa_budget: int = 1000
    progress: bool = True


@dataclass
class _Tally:
    recall: dict[int, list[float]] = field(default_factory=lambda: defaultdict(list))
    any_evidence: dict[int, list[float]] = field(default_factory=lambda: defaultdict(list))
    by_category: dict[str, dict[int, list[float]]] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(list)))
    answers_by_category: dict[str, dict[int, list[float]]] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(list)))
    sessions: dict[int, list[float]] = field(default_factory=lambda: defaultdict(list))
    answers: dict[int, list[float]] = field(default_factory=lambda: defaultdict(list))
    tokens: dict[int, list[int]] = field(default_factory=lambda: defaultdict(list))
    latency: list[float] = field(default_factory=list)
    lost: LossTally = field(default_factory=LossTally)


def load_questions(dataset: Dataset, data: Path) -> list[Question]:
    return locomo_questions(data) if dataset == "locomo" else longmemeval_questions(data)


def sample(questions: list[T], limit: int | None, seed: int) -> list[T]:
    """A reproducible sample that keeps the file's order (of questions, or of conversation
    keys)."""
    if limit is None or limit >= len(questions):
        return questions
    chosen = sorted(random.Random(seed).sample(range(len(questions)), limit))
    return [questions[i] for i in chosen]


def pick(questions: list[Question], limit: int | None, seed: int,
         conversations: int | None = None) -> list[Question]:
    """The questions a run measures: a sample of ``limit`` questions, and/or only those of
    a sample of ``conversations`` whole conversations (both drawn with ``seed``)."""
    if conversations is not None:
        keep = set(sample(sorted({q.conversation for q in questions}), conversations, seed))
        questions = [q for q in questions if q.conversation in keep]
    return sample(questions, limit, seed)


def space_prefix(dataset: Dataset, data: Path, memory: Memory) -> str:
    digest = hashlib.sha256(data.read_bytes())
    settings = memory.settings
    layers = settings.ingest_layers.replace(" ", "")
    writer = (f"llm:{settings.llm_model}" if settings.llm_configured and settings.llm_ingest
              else "rules")  # spaces written by an LLM are not reused for a rules-only run
    digest.update(f"{memory.embedder.name}|{INGEST_VERSION}|{layers}|{writer}".encode())
    for name in parse_names(layers):  # a layer's own options change what it writes
        for value in LAYERS[name].read_options(settings).model_dump().values():
            digest.update(f"|{value}".encode())
        digest.update(LAYERS[name].fingerprint(settings).encode())
    return f"eval-{dataset}-{digest.hexdigest()[:10]}"


def ingest_spaces(memory: Memory, dataset: Dataset, data: Path, keys: set[str],
                  progress: bool) -> tuple[dict[str, str], float]:
    """One space per conversation, reused when it was ingested with the same file and settings.
    Returns the space of every conversation key and the ingest seconds (first ingest)."""
    prefix = space_prefix(dataset, data, memory)
    ledger_path = memory.settings.cache_dir / "eval" / f"{prefix}.json"
    ledger: dict[str, float] = (json.loads(ledger_path.read_text())
                                if ledger_path.exists() else {})
    held = {row["space"] for row in memory.spaces()}
    spaces = {key: f"{prefix}-{key}" for key in keys}
    missing = [key for key in sorted(keys) if spaces[key] not in held or key not in ledger]
    if missing:
        parsed = parse_file(data, dataset, max_turn_chars=memory.settings.max_turn_chars,
                            bad_turns="skip")  # QMSum and LongMemEval hold a few empty turns
        by_key: dict[str, ConversationRecord] = {c.key: c for c in parsed.conversations}
        if any(key not in by_key for key in missing) and parsed.errors:
            raise parsed.errors[0]  # a conversation the questions need was rejected
        ledger_path.parent.mkdir(parents=True, exist_ok=True)
        bar = tqdm(total=len(missing), desc="ingest", unit="conv", disable=not progress)

        def stored(space: str, report: IngestReport) -> None:  # resumable: kept as each commits
            ledger[space[len(prefix) + 1:]] = report.seconds
            ledger_path.write_text(json.dumps(ledger, indent=1))
            bar.update()

        memory.ingest_spaces({spaces[key]: [by_key[key]] for key in missing}, stored=stored)
        bar.close()
    return spaces, sum(ledger[key] for key in keys)


def _session_key(hit: Hit) -> str | None:
    return unquote(hit.session_id.rsplit("/", 1)[-1]) if hit.session_id else None


def _score(result: SearchResult, budget: int, question: Question,
           tally: _Tally, ranking: list[list[str]] | None = None) -> None:
    chosen = set(result.included)  # what the strategy packed for this budget
    included = [hit for hit in result.hits if hit.id in chosen]
    tally.tokens[budget].append(result.context_tokens)
    if question.evidence:
        covered = covered_turns(included, result.context, question.evidence)
        recall = len(covered) / len(question.evidence)
        tally.recall[budget].append(recall)
        tally.any_evidence[budget].append(1.0 if covered else 0.0)
        tally.by_category[question.category][budget].append(recall)
        tally.lost.add(question.category, budget, result, question.evidence, ranking)
    words = answer_words(question.answer, question.question)
    if words:
        found = answer_recall(result.context, words)
        tally.answers[budget].append(found)
        tally.answers_by_category[question.category][budget].append(found)
    gold_sessions = question.extra.get("answer_sessions")
    if gold_sessions:
        seen = {_session_key(h) for h in included if len(h.source_ids) <= 3}
        tally.sessions[budget].append(len(seen & set(gold_sessions)) / len(gold_sessions))


def _mean(values: Sequence[float]) -> float | None:
    return round(statistics.fmean(values), 4) if values else None


def of_categories(questions: list[Question], categories: Sequence[str],
                  file: str | None = None) -> list[Question]:
    """The questions of ``categories`` (every question when none is named); a name no
    question of the file carries is refused with the names it does carry."""
    if not categories:
        return questions
    known = sorted({q.category for q in questions})
    unknown = sorted(set(categories) - set(known))
    if unknown:
        raise InputError(f"no question of category {', '.join(unknown)}; the file's "
                         f"categories: {', '.join(known)}", file=file, field="--category")
    return [q for q in questions if q.category in set(categories)]


def run_retrieval_eval(memory: Memory, dataset: Dataset, data: Path,
                       options: EvalOptions) -> dict[str, Any]:
    questions = pick(of_categories(load_questions(dataset, data), options.categories,
                                   data.name), options.limit, options.seed, options.conversations)
    spaces, ingest_seconds = ingest_spaces(memory, dataset, data,
                                           {q.conversation for q in questions}, options.progress)
    memory.embedder.embed(["warm-up"])  # load the model outside the timed searches
    budgets = sorted(set(options.budgets) | ({options.qa_budget} if options.llm else set()))
    scorer = QAScorer(memory, dataset) if options.llm else None
    report: dict[str, Any] = {"dataset": dataset, "data": str(data), "strategies": {},
                              "n_questions_sampled": len(questions), "seed": options.seed,
                              "limit": options.limit,
                              "conversations": options.conversations,
                              **({"categories": list(options.categories)}
                                 if options.categories else {})}
    for name in options.strategies:  # NAME, or NAME:option=value,... (registry.parse_spec)
        recipe, overrides = parse_spec(name)
        tally = _Tally()
        contexts: list[tuple[Question, SearchResult]] = []
        for question in tqdm(questions, desc=name, unit="q", disable=not options.progress):
            for budget in budgets:
                rankings: list[list[list[str]]] = []
                token = RANKING.set(rankings)  # filled by a strategy that packs its own
                began = time.perf_counter()
                try:
                    result = memory.search(question.question,
                                           space=spaces[question.conversation],
                                           strategy=recipe, budget=budget, **overrides)
                finally:
                    RANKING.reset(token)
                tally.latency.append((time.perf_counter() - began) * 1000)
                _score(result, budget, question, tally, rankings[-1] if rankings else None)
                if budget == options.qa_budget:
                    contexts.append((question, result))
        shown = [b for b in budgets if b in options.budgets]
        entry: dict[str, Any] = {
            "n_questions": len(questions),
            "evidence_recall": {str(b): _mean(tally.recall[b]) for b in shown},
            # at least one evidence turn in the context: the measure for long span evidence
            "any_evidence": {str(b): _mean(tally.any_evidence[b]) for b in shown},
            "evidence_recall_by_category": {
                cat: {str(b): _mean(per[b]) for b in shown}
                for cat, per in sorted(tally.by_category.items())
            },
            "answer_recall": {str(b): _mean(tally.answers[b]) for b in shown},
            "answer_recall_by_category": {
                cat: {str(b): _mean(per[b]) for b in shown}
                for cat, per in sorted(tally.answers_by_category.items())
            },
            # where the evidence the contexts miss was lost (graphmem.eval.diagnosis)
            "missed_evidence_by_category": tally.lost.summary(shown),
            "latency_ms": {"p50": round(percentile(tally.latency, 50), 1),
                           "p95": round(percentile(tally.latency, 95), 1)},
            "ingest_seconds": round(ingest_seconds, 2),
            "context_tokens_mean": _mean(tally.tokens[max(shown)]),
            "context_tokens_mean_by_budget": {str(b): _mean(tally.tokens[b]) for b in shown},
            "qa": scorer.score(contexts, options.progress) if scorer else None,
        }
        if dataset == "longmemeval":
            entry["session_recall"] = {str(b): _mean(tally.sessions[b]) for b in shown}
        report["strategies"][name] = entry
    # everything the LLM did in this run (ingestion, retrieval, answers, judging), per task
    report["llm_usage"] = {task: vars(u) for task, u in memory.llm_usage().items()}
    return report
