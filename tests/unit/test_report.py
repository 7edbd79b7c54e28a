"""The Markdown tables an evaluation report turns into (docs/results.md is stitched from them)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest

from graphmem.eval.report import answer_recall_table, retrieval_markdown, write_report


def _entry(recall: float, answer: dict[str, float] | None = None) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "evidence_recall": {"1000": recall, "2000": recall + 0.1},
        "evidence_recall_by_category": {"temporal": {"1000": recall}},
        "latency_ms": {"p50": 12.0, "p95": 30.5},
        "context_tokens_mean": 950.4,
    }
    if answer is not None:
        entry["answer_recall"] = answer
    return entry


def test_answer_recall_lists_only_strategies_that_report_it() -> None:
    strategies = {"turns": _entry(0.5),
                  "graphmem": _entry(0.8, {"1000": 0.75, "2000": 0.8125})}
    lines = answer_recall_table(strategies, ["1000", "2000"], quote=True)
    rows = [line for line in lines if line.startswith("| `")]
    assert rows == ["| `graphmem` | 75.0 | 81.2 |"]


def test_answer_recall_table_is_absent_when_no_strategy_reports_it() -> None:
    assert answer_recall_table({"turns": _entry(0.5)}, ["1000", "2000"]) == []


def test_retrieval_markdown_has_one_row_per_strategy_with_recall_and_latency() -> None:
    report = {"dataset": "locomo", "data": "/x/locomo_dev.json", "n_questions_sampled": 7,
              "strategies": {"turns": _entry(0.5), "graphmem": _entry(0.875)}}
    text = retrieval_markdown(report)
    assert text.startswith("# locomo: locomo_dev.json")
    assert "| graphmem | 87.5 | 97.5 | 12.0 | 30.5 | 950 |" in text
    assert "| turns | 50.0 | 60.0 | 12.0 | 30.5 | 950 |" in text
    assert "| graphmem | 87.5 |\n" in text  # the by-category table at 1,000 tokens
    assert "Answer recall" not in text


def test_a_report_without_matplotlib_is_written_without_its_figure(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    report = {"dataset": "locomo", "data": "x.json", "n_questions_sampled": 3,
              "strategies": {"turns": _entry(50.0)}}
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "matplotlib" else real(name, *a))
    out = tmp_path / "r.json"
    assert write_report(report, out) == [out, out.with_suffix(".md")]
    assert json.loads(out.read_text())["n_questions_sampled"] == 3
    assert "| turns |" in out.with_suffix(".md").read_text()
    assert not out.with_suffix(".png").exists()
