"""Question answering from a strategy's context, scored by F1, LoCoMo F1, BLEU-1 and a judge."""

from __future__ import annotations

import statistics
import time
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from tqdm import tqdm

from graphmem.client import Memory
from graphmem.errors import ConfigurationError
from graphmem.eval.datasets import Question
from graphmem.eval.metrics import percentile
from graphmem.eval.qa_metrics import bleu1, locomo_f1, token_set_f1
from graphmem.models import SearchResult
from graphmem.prompts import answer as answer_prompt
from graphmem.prompts import judge as judge_prompt
from graphmem.providers.llm import LLMError


class QAScorer:
    def __init__(self, memory: Memory, dataset: str) -> None:
        if memory.llm is None:
            raise ConfigurationError("--llm needs an LLM: set GRAPHMEM_LLM_BASE_URL")
        self.llm = memory.llm
        self.dataset = dataset

    def _answer(self, question: Question, context: str) -> str | None:
        today = question.extra.get("question_date")
        try:
            reply = self.llm.structured(answer_prompt.TASK,
                                        answer_prompt.messages(question.question, context, today),
                                        answer_prompt.AnswerOutput)
        except LLMError:
            return None
        return reply.answer

    def _judge(self, question: Question, prediction: str) -> bool | None:
        try:
            verdict = self.llm.structured(judge_prompt.TASK, judge_prompt.messages(
                question.question, question.answer, prediction), judge_prompt.JudgeOutput)
        except LLMError:
            return None
        return verdict.verdict == "CORRECT"

    def score(self, contexts: Sequence[tuple[Question, SearchResult]],
              progress: bool) -> dict[str, Any]:
        rows: list[dict[str, Any]] = []
        latency: list[float] = []
        failures = 0
        for question, result in tqdm(contexts, desc="qa", unit="q", disable=not progress):
            began = time.perf_counter()
            prediction = self._answer(question, result.context)
            latency.append((time.perf_counter() - began) * 1000)
            if prediction is None:
                failures += 1
                prediction = ""
            category = question.category if self.dataset == "locomo" else "single-hop"
            judged = self._judge(question, prediction) if prediction else False
            rows.append({
                "category": question.category,
                "f1": token_set_f1(prediction, question.answer),
                "locomo_f1": locomo_f1(prediction, question.answer, category),
                "bleu1": bleu1(prediction, question.answer),
                "judge": float(judged) if judged is not None else None,
                "tokens": result.context_tokens,
            })
        return {
            "n": len(rows),
            **_means(rows),
            "by_category": {cat: _means(group) for cat, group in _group(rows).items()},
            "context_tokens_mean": round(statistics.fmean(r["tokens"] for r in rows), 1)
            if rows else None,
            "latency_ms": {"p50": round(percentile(latency, 50), 1),
                           "p95": round(percentile(latency, 95), 1)},
            "answer_failures": failures,
            "llm_usage": {task: vars(u) for task, u in self.llm.usage().items()},
        }


def _group(rows: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        groups[row["category"]].append(row)
    return dict(sorted(groups.items()))


def _means(rows: list[dict[str, Any]]) -> dict[str, float | None]:
    out: dict[str, float | None] = {}
    for key, name in (("f1", "f1"), ("locomo_f1", "locomo_f1"), ("bleu1", "bleu1"),
                      ("judge", "judge_accuracy")):
        values = [r[key] for r in rows if r[key] is not None]
        out[name] = round(statistics.fmean(values), 4) if values else None
    return out
