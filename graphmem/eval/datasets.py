"""Questions with gold evidence, read from the datasets' own files."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from graphmem.ingest.loaders import read_json

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
    """Categories 1-4 with at least one resolvable evidence id (malformed strings split)."""
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
            if category not in LOCOMO_CATEGORIES:
                continue
            ids = [m for raw in qa.get("evidence", []) for m in _DIA_ID.findall(str(raw))]
            evidence = {i: texts[i] for i in dict.fromkeys(ids) if i in texts}
            if evidence:
                out.append(Question(sample["sample_id"], qa["question"], str(qa["answer"]),
                                    LOCOMO_CATEGORIES[category], evidence))
    return out
