"""Questions with gold evidence, read from the datasets' own files."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from graphmem.errors import InputError
from graphmem.ingest.inputs.loaders import read_json

_DIA_ID = re.compile(r"D\d+:\d+")
LOCOMO_CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}


@dataclass(frozen=True)
class Question:
    conversation: str  # the conversation key inside its space
    question: str
    answer: str
    category: str
    evidence: dict[str, str] = field(default_factory=dict)  # source id -> turn text
    extra: dict[str, Any] = field(default_factory=dict)


def locomo_questions(path: Path) -> list[Question]:
    """Questions of a file in LoCoMo's shape with at least one resolvable evidence id
    (malformed strings split): LoCoMo's categories 1-4 (5, adversarial, has no evidence to
    find), and every question of the datasets laid out the same way with string categories
    (FriendsQA's ``friendsqa_what``..., QMSum's ``qmsum_specific``: the part after the
    dataset's name). QMSum's evidence spans stay in ``extra["spans"]``."""
    out = []
    for sample in read_json(path):
        conv = sample["conversation"]
        texts = {
            turn["dia_id"]: turn["text"]
            for key, turns in conv.items()
            if re.fullmatch(r"session_\d+", key)
            for turn in turns
        }
        for qa in sample["qa"]:
            category = qa.get("category")
            if isinstance(category, str) and category:
                named = category.split("_", 1)[-1]
            elif category in LOCOMO_CATEGORIES:
                named = LOCOMO_CATEGORIES[category]
            else:
                continue
            ids = [m for raw in qa.get("evidence", []) for m in _DIA_ID.findall(str(raw))]
            # an empty turn (QMSum has a few inside spans) is not stored: nothing to find
            evidence = {i: texts[i] for i in dict.fromkeys(ids) if str(texts.get(i, "")).strip()}
            extra = {"spans": qa["evidence_spans"]} if qa.get("evidence_spans") else {}
            if evidence:
                out.append(Question(sample["sample_id"], qa["question"], str(qa["answer"]),
                                    named, evidence, extra))
    return out


@dataclass(frozen=True)
class Dialogue:
    dial_id: str
    utterances: list[str]
    boundaries: list[int]


def segmentation_dialogues(path: Path) -> list[Dialogue]:
    """One dialogue per JSON line: ``dial_id``, ``utterances``, ``boundary_starts``."""
    out = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            out.append(Dialogue(str(record["dial_id"]), list(record["utterances"]),
                                [int(b) for b in record["boundary_starts"]]))
        except (json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
            raise InputError(f"bad dialogue: {exc}", file=str(path),
                             record=f"line {number}") from exc
    return out


def longmemeval_questions(path: Path) -> list[Question]:
    """Every question; evidence = its turns marked ``has_answer`` (ids as the loader makes them),
    and ``extra["answer_sessions"]`` = its answer session ids."""
    out = []
    for item in read_json(path):
        evidence = {}
        for sid, session in zip(item["haystack_session_ids"], item["haystack_sessions"],
                                strict=True):
            for i, turn in enumerate(session):
                if turn.get("has_answer") and str(turn.get("content", "")).strip():
                    evidence[f"{sid}#{i}"] = str(turn["content"]).strip()
        out.append(Question(str(item["question_id"]), item["question"], str(item["answer"]),
                            item["question_type"], evidence,
                            {"answer_sessions": [str(s) for s in item["answer_session_ids"]],
                             "question_date": item.get("question_date")}))
    return out
