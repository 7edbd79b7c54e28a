"""`graphmem eval ...` end to end on small hand-made files: the JSON contract, recall values,
reports beside the JSON, and QA scoring through a scripted OpenAI-compatible server."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from graphmem.cli import main
from graphmem.client import Memory
from graphmem.eval.runner import space_prefix

from helpers import DATA, ScriptedServer


def run(*args: str, env: dict[str, str | None] | None = None) -> tuple[int, str]:
    base: dict[str, str | None] = {"GRAPHMEM_LLM_BASE_URL": None, "GRAPHMEM_LLM_API_KEY": None}
    result = CliRunner().invoke(main, list(args), env={**base, **(env or {})})
    return result.exit_code, result.output


@pytest.fixture()
def cleanup(memory: Memory) -> Iterator[None]:
    yield
    for dataset, name in (("locomo", "mini_locomo.json"), ("locomo", "mini_friendsqa.json"),
                          ("locomo", "mini_qmsum.json"),
                          ("longmemeval", "mini_longmemeval.json")):
        prefix = space_prefix(dataset, DATA / name, memory)  # type: ignore[arg-type]
        for row in memory.spaces():
            if row["space"].startswith(prefix):
                memory.delete_space(row["space"])


def load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text())  # type: ignore[no-any-return]


def test_eval_locomo_contract(tmp_path: Path, cleanup: None, neo4j_server: object) -> None:
    out = tmp_path / "locomo.json"
    code, text = run("eval", "locomo", "--data", str(DATA / "mini_locomo.json"),
                     "--strategy", "turns", "--strategy", "turns-bm25",
                     "--budgets", "20,1000", "--out", str(out))
    assert code == 0, text
    report = load(out)
    assert report["dataset"] == "locomo" and report["data"].endswith("mini_locomo.json")
    entry = report["strategies"]["turns"]
    assert set(entry) >= {"n_questions", "evidence_recall", "evidence_recall_by_category",
                          "latency_ms", "ingest_seconds", "context_tokens_mean", "qa"}
    assert entry["n_questions"] == 2  # category 5 is left out
    assert entry["qa"] is None
    # with 1,000 tokens the whole 5-turn conversation fits: every evidence turn is covered
    assert entry["evidence_recall"]["1000"] == 1.0 == entry["any_evidence"]["1000"]
    assert 0.0 <= entry["evidence_recall"]["20"] < 1.0
    assert entry["any_evidence"]["20"] >= entry["evidence_recall"]["20"]
    assert set(entry["evidence_recall_by_category"]) == {"single-hop", "multi-hop"}
    assert set(entry["answer_recall_by_category"]) == {"single-hop", "multi-hop"}
    assert entry["answer_recall_by_category"]["single-hop"]["1000"] == 1.0  # all of it fits
    assert entry["latency_ms"]["p95"] >= entry["latency_ms"]["p50"] > 0
    assert out.with_suffix(".md").read_text().startswith("# locomo")
    assert out.with_suffix(".png").read_bytes()[:4] == b"\x89PNG"
    # a second run reuses the spaces: same recall, and the first ingest time is reported
    assert run("eval", "locomo", "--data", str(DATA / "mini_locomo.json"), "--budgets",
               "20,1000", "--out", str(out))[0] == 0
    again = load(out)["strategies"]["turns"]
    assert again["evidence_recall"] == entry["evidence_recall"]
    assert again["ingest_seconds"] == entry["ingest_seconds"]
    # one category: only its questions are asked, on the same spaces
    assert run("eval", "locomo", "--data", str(DATA / "mini_locomo.json"), "--category",
               "multi-hop", "--budgets", "20,1000", "--out", str(out))[0] == 0
    narrowed = load(out)
    assert narrowed["categories"] == ["multi-hop"]
    only = narrowed["strategies"]["turns"]
    assert only["n_questions"] == 1 and set(only["evidence_recall_by_category"]) == {"multi-hop"}
    assert only["ingest_seconds"] == entry["ingest_seconds"]


def test_an_unknown_category_is_refused_with_the_files_own(tmp_path: Path,
                                                           neo4j_server: object) -> None:
    out = tmp_path / "x.json"
    code, text = run("eval", "locomo", "--data", str(DATA / "mini_locomo.json"), "--category",
                     "multihop", "--out", str(out))
    assert code == 1 and "multihop" in text and "multi-hop, single-hop" in text
    assert "--category" in text and "mini_locomo.json" in text and not out.exists()


def test_eval_longmemeval_reports_sessions(tmp_path: Path, cleanup: None,
                                           neo4j_server: object) -> None:
    out = tmp_path / "lme.json"
    code, text = run("eval", "longmemeval", "--data", str(DATA / "mini_longmemeval.json"),
                     "--budgets", "25,500", "--out", str(out))
    assert code == 0, text
    entry = load(out)["strategies"]["turns"]
    assert entry["evidence_recall"]["500"] == 1.0 and entry["session_recall"]["500"] == 1.0
    assert set(entry["evidence_recall_by_category"]) == {"single-session-user"}


def test_eval_with_llm_scores_answers(tmp_path: Path, cleanup: None,
                                     neo4j_server: object) -> None:
    server = ScriptedServer()
    server.script = [('{"answer": "Ilse"}', "stop"),
                     ('{"reasoning": "same", "verdict": "CORRECT"}', "stop"),
                     ('{"answer": "Bergen"}', "stop"),
                     ('{"reasoning": "differs", "verdict": "WRONG"}', "stop")]
    out = tmp_path / "qa.json"
    env = {"GRAPHMEM_LLM_BASE_URL": server.url, "GRAPHMEM_LLM_MODEL": f"s-{uuid.uuid4().hex}",
           "GRAPHMEM_LLM_INGEST": "false", "GRAPHMEM_LLM_RETRIEVAL": "false"}  # QA only
    try:
        code, text = run("eval", "locomo", "--data", str(DATA / "mini_locomo.json"), "--llm",
                         "--budgets", "1000", "--out", str(out), env=env)
    finally:
        server.httpd.shutdown()
    assert code == 0, text
    qa = load(out)["strategies"]["turns"]["qa"]
    assert qa["n"] == 2 and qa["answer_failures"] == 0
    assert qa["f1"] == 0.5 and qa["judge_accuracy"] == 0.5
    assert qa["by_category"]["single-hop"]["locomo_f1"] == 1.0
    assert qa["llm_usage"]["answer"]["calls"] == 2 and qa["llm_usage"]["judge"]["calls"] == 2
    # the answer prompt carried the retrieved context
    assert "Ilse" in server.requests[0]["messages"][1]["content"]  # type: ignore[index]


def test_eval_segmentation(tmp_path: Path) -> None:
    data = tmp_path / "dialogues.jsonl"
    lines = [{"dial_id": "d1", "utterances": ["I love pizza", "Pizza with olives is best",
                                              "Did you see the football match?",
                                              "Yes, the goalkeeper was great"],
              "segments": [2, 2], "boundary_starts": [2]}]
    data.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    out = tmp_path / "seg.json"
    code, text = run("eval", "segmentation", "--data", str(data), "--method",
                     "minilm-adjacent:q=0.34", "--out", str(out))
    assert code == 0, text
    scores = load(out)["methods"]["minilm-adjacent:q=0.34"]
    assert scores == {"pk": 0.0, "wd": 0.0, "f1": 1.0, "score": 1.0, "n_dialogues": 1}


def test_unknown_strategy_fails_before_work(tmp_path: Path) -> None:
    code, text = run("eval", "locomo", "--data", str(DATA / "mini_locomo.json"), "--strategy",
                     "nope", "--out", str(tmp_path / "x.json"))
    assert code == 1 and "unknown strategy" in text


def test_a_strategys_options_are_read_as_its_fields_before_work(tmp_path: Path) -> None:
    out = tmp_path / "x.json"
    for spec, said in (("graphmem:times=maybe", "times='maybe' is not bool"),
                       ("graphmem:colour=red", "one of gamma, headers")):
        code, text = run("eval", "locomo", "--data", str(DATA / "mini_locomo.json"),
                         "--strategy", spec, "--out", str(out))
        assert code == 1 and said in text and "--strategy" in text and not out.exists()


def test_eval_on_a_multi_party_meeting_with_span_evidence(tmp_path: Path, cleanup: None,
                                                         neo4j_server: object) -> None:
    """QMSum's shape end to end: several speakers, an empty turn skipped, span evidence (a
    question answered by a long span reaches some of its turns before all of them)."""
    out = tmp_path / "qmsum.json"
    code, text = run("eval", "locomo", "--data", str(DATA / "mini_qmsum.json"),
                     "--strategy", "turns", "--strategy", "graphmem", "--strategy",
                     "graphmem:times=false", "--budgets", "15,1000", "--out", str(out))
    assert code == 0, text
    entries = load(out)["strategies"]
    assert list(entries) == ["turns", "graphmem", "graphmem:times=false"]
    for entry in entries.values():
        assert entry["n_questions"] == 1 and set(entry["evidence_recall_by_category"]) == {
            "specific"}
        assert entry["any_evidence"]["1000"] == 1.0 == entry["evidence_recall"]["1000"]
        # 15 tokens hold one line: some of the span, never all of it
        assert entry["any_evidence"]["15"] >= entry["evidence_recall"]["15"]
        assert entry["evidence_recall"]["15"] < 1.0


def test_train_ranker_holds_each_dataset_out(tmp_path: Path, cleanup: None,
                                             neo4j_server: object) -> None:
    """`train-ranker` on three datasets of one conversation each: every dataset is a row of
    the leave-one-dataset-out matrix, and the shipped file carries its choices."""
    out = tmp_path / "ranker.json"
    code, text = run("eval", "train-ranker", "--locomo", str(DATA / "mini_locomo.json"),
                     "--friendsqa", str(DATA / "mini_friendsqa.json"),
                     "--qmsum", str(DATA / "mini_qmsum.json"), "--conversations", "1",
                     "--folds", "2", "--no-ablate", "--out", str(out))
    assert code == 0, text
    assert "friendsqa held out" in text and "qmsum held out" in text
    saved = load(out)
    held = saved["metrics"]["leave_one_dataset_out"]
    assert set(held["matrix"]) == {"locomo", "friendsqa", "qmsum"}
    for row in held["matrix"].values():
        assert set(row) == {"questions", "evidence", "any_evidence", "answers"}
        assert 0.0 <= row["evidence"]["1000"] <= row["any_evidence"]["1000"] <= 1.0
    assert saved["floor"] == held["floor"] and saved["blend"][0] == held["blend"]
    assert saved["spread"] == held["spread"]
    assert saved["window"] == [held["window"], held["carry"]]
    assert "window" in text


def test_train_ranker_refuses_an_unknown_feature_family() -> None:
    code, text = run("eval", "train-ranker", "--locomo", str(DATA / "mini_locomo.json"),
                     "--without", "nope")
    assert code == 2 and "no feature family nope" in text and "position" in text
