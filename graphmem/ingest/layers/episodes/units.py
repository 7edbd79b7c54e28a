"""EMA's episodic memory units (seed 003), without an LLM: what each unit holds, how units link,
which later unit replaces an earlier one, and which are near-duplicates.

- A unit is one admitted turn, or (``run`` > 1) a short run of consecutive admitted turns of
  one session whose topics agree (either speaker: a question and its answer make one event;
  the unit's speaker is the first turn's). Time: its session's date; participants: its
  speaker and the persons it names; tags: its entities and noun phrases; summary: its first
  sentences; importance: the mean MemDecider score; confidence: lowered by hedges
  ("maybe", "I think") and questions, since a firm first-hand statement is the safest memory.
- Links (``RELATED``): the ``links`` most similar other units, when at least ``link_threshold``
  similar and sharing a participant or a tag.
- Self-update (``SUPERSEDED_BY``): a later unit of the same speaker replaces an earlier one
  when both fill the same *slot* (a favourite thing, a job, a home, how many of something)
  with different values, or when the later one is similar (cosine >= 0.65) and says that
  something changed ("cancelled", "no longer", "switched", "my new"). Same speaker, same
  slot, later time: people update their own facts, and a new value of the same slot is the
  newer truth.
- Near-duplicates (reorganisation): a later unit of the same speaker almost identical to an
  earlier one is merged into it (``MERGED_INTO``; nothing is deleted).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import Field

from graphmem.ingest.layer import LayerOptions
from graphmem.text import arguments_of, display_name, turn_line

HEDGES = re.compile(r"\b(maybe|might|perhaps|probably|possibly|i think|i guess|not sure|"
                    r"i suppose|kind of|sort of|i believe|could be)\b", re.I)
CHANGE_CUES = re.compile(r"\b(cancel(?:l?ed|ling)?|called off|no longer|not anymore|any ?more|"
                         r"changed my mind|switched|instead|actually|upgraded|replaced|"
                         r"postponed|rescheduled|moved|my new|quit)\b", re.I)
_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_TIME_UNITS = {"year", "month", "week", "day", "hour", "minute", "second", "time", "night",
               "weekend", "morning", "evening"}
_SLOT_VERBS = {"work": "job", "hire": "job", "employ": "job", "live": "home", "move": "home",
               "relocate": "home"}


class EpisodeOptions(LayerOptions):
    """The episodes layer's options, GRAPHMEM_EPISODES_*."""

    model: Path | None = Field(
        default=None, description="EMA: a MemDecider model file (.npz); unset: the shipped one")
    tau: float | None = Field(default=None, ge=0, le=1, description="EMA: admission threshold "
                              "on the MemDecider score; unset: the model's own")
    run: int = Field(default=1, ge=1, le=10,
                     description="EMA: most consecutive admitted turns in one unit")
    links: int = Field(default=3, ge=0, le=20, description="EMA: most RELATED links per unit")
    link_threshold: float = Field(default=0.5, ge=-1, le=1, description="EMA: cosine at which "
                                  "two units may be linked")
    reorganise_after: int = Field(default=200, ge=1, description="EMA: new links and updates "
                                  "in a conversation that trigger its reorganisation "
                                  "(re-embedding, merging near-duplicates)")


@dataclass(frozen=True)
class EpisodeConfig:
    """Options of the episodes layer (``GRAPHMEM_EPISODES_*``)."""

    tau: float | None = None  # admission threshold; None: the model's own
    run: int = 1  # most turns one unit joins
    run_similarity: float = 0.5
    links: int = 3
    link_threshold: float = 0.5
    update_similarity: float = 0.65
    duplicate_threshold: float = 0.95
    reorganise_after: int = 200

    @classmethod
    def of(cls, options: EpisodeOptions) -> EpisodeConfig:
        return cls(tau=options.tau, run=options.run, links=options.links,
                   link_threshold=options.link_threshold,
                   reorganise_after=options.reorganise_after)


@dataclass
class Unit:
    """One episodic memory unit being built."""

    key: str  # input id of its first turn
    session: int  # position of its session
    order: int  # position in the conversation
    speaker: str
    time: datetime | None
    source_ids: list[str]
    content: str
    vector: np.ndarray
    importance: float
    participants: list[str] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    summary: str = ""
    confidence: float = 1.0
    slots: dict[str, str] = field(default_factory=dict)


def confidence(text: str) -> float:
    """1.0 for a plain statement, less for each hedge and for a question (at least 0.2)."""
    value = 1.0 - 0.2 * len(HEDGES.findall(text)) - (0.3 if text.rstrip().endswith("?") else 0)
    return round(max(0.2, value), 2)


def extract_summary(text: str, sentences: int = 2) -> str:
    parts = _SENTENCE.split(text.strip())
    return " ".join(parts[:sentences])


def slots(doc: Any) -> dict[str, str]:
    """The facts a first-person text states, by slot: ``favorite:<thing>``, ``job``, ``home``,
    ``count:<thing>``; the value is what fills it."""
    found: dict[str, str] = {}
    for sent in doc.sents:
        words = {t.lower_ for t in sent}
        if not words & {"i", "my", "we", "our", "i'm", "me"}:
            continue
        for tok in sent:
            lemma = tok.lemma_.lower()
            if lemma in ("favorite", "favourite") and tok.head.pos_ in ("NOUN", "PROPN"):
                found[f"favorite:{tok.head.lemma_.lower()}"] = sent.text[tok.idx - sent.start_char:]
            elif lemma in _SLOT_VERBS and tok.pos_ == "VERB":
                value = " ".join(e.text for e in sent.ents if e.label_ in ("ORG", "GPE", "LOC"))
                if value:
                    found[_SLOT_VERBS[lemma]] = value.lower()
            elif (tok.like_num and tok.dep_ == "nummod" and tok.head.pos_ == "NOUN"
                  and tok.head.lemma_.lower() not in _TIME_UNITS):
                found[f"count:{tok.head.lemma_.lower()}"] = tok.text.lower()
    return found


def _cos(a: np.ndarray, b: np.ndarray) -> float:
    denom = float(np.linalg.norm(a) * np.linalg.norm(b))
    return float(a @ b) / denom if denom else 0.0


def build_units(turns: list[dict[str, Any]], config: EpisodeConfig) -> list[Unit]:
    """Units from the admitted turns, in conversation order. Each turn dict holds ``source_id,
    session, speaker, text, image_caption, time, vector, score, doc`` and ``admitted``."""
    units: list[Unit] = []
    previous: dict[str, Any] | None = None
    for turn in turns:
        if not turn["admitted"]:
            previous = None
            continue
        last = units[-1] if units else None
        joins = (config.run > 1 and last is not None and previous is not None
                 and previous["session"] == turn["session"]
                 and len(last.source_ids) < config.run
                 and _cos(last.vector, turn["vector"]) >= config.run_similarity)
        line = turn_line(display_name(turn["speaker"]), turn["text"], turn["image_caption"])
        people = [e.text for e in turn["doc"].ents if e.label_ == "PERSON"]
        tags = list(arguments_of(turn["doc"][:]))
        if joins and last is not None:
            n = len(last.source_ids)
            last.source_ids.append(turn["source_id"])
            last.content += "\n" + line
            last.vector = (last.vector * n + turn["vector"]) / (n + 1)
            last.importance = (last.importance * n + turn["score"]) / (n + 1)
            last.participants = list(dict.fromkeys([*last.participants,
                                                    display_name(turn["speaker"]), *people]))
            last.tags = list(dict.fromkeys([*last.tags, *tags]))[:8]
            last.slots.update(slots(turn["doc"]))
            last.confidence = min(last.confidence, confidence(turn["text"]))
        else:
            units.append(Unit(
                key=turn["source_id"], session=turn["session"], order=len(units),
                speaker=turn["speaker"], time=turn["time"], source_ids=[turn["source_id"]],
                content=line, vector=np.asarray(turn["vector"], dtype=np.float32),
                importance=float(turn["score"]),
                participants=list(dict.fromkeys([display_name(turn["speaker"]), *people])),
                tags=tags[:8], confidence=confidence(turn["text"]), slots=slots(turn["doc"])))
        previous = turn
    for unit in units:
        unit.importance = round(unit.importance, 4)
        if not unit.summary:
            unit.summary = extract_summary(unit.content)
    return units


def link(units: list[Unit], config: EpisodeConfig) -> list[tuple[int, int, float]]:
    """``RELATED`` pairs (i < j, similarity): each unit's ``links`` best qualifying partners."""
    if len(units) < 2:
        return []
    vectors = np.vstack([u.vector for u in units])
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    sims = (vectors / np.where(norms > 0, norms, 1.0)) @ (vectors / np.where(norms > 0, norms,
                                                                               1.0)).T
    pairs: dict[tuple[int, int], float] = {}
    degree = [0] * len(units)
    for i, unit in enumerate(units):
        people, tags = set(unit.participants), set(unit.tags)
        for j in np.argsort(-sims[i]).tolist():
            if degree[i] >= config.links or sims[i, j] < config.link_threshold:
                break
            pair = (min(i, j), max(i, j))
            other = units[j]
            if (j != i and pair not in pairs and degree[j] < config.links
                    and (people & set(other.participants) or tags & set(other.tags))):
                pairs[pair] = round(float(sims[i, j]), 4)
                degree[i] += 1
                degree[j] += 1
    return sorted((i, j, s) for (i, j), s in pairs.items())


def supersessions(units: list[Unit], config: EpisodeConfig) -> dict[int, int]:
    """Earlier unit -> the first later unit of the same speaker that replaces it."""
    out: dict[int, int] = {}
    for j, new in enumerate(units):
        for i in range(j):
            old = units[i]
            if i in out or old.speaker != new.speaker or not _later(old, new):
                continue
            same_slot = any(k in old.slots and old.slots[k] != v for k, v in new.slots.items())
            changed = (bool(CHANGE_CUES.search(new.content))
                       and _cos(old.vector, new.vector) >= config.update_similarity)
            if same_slot or changed:
                out[i] = j
    return out


def duplicates(units: list[Unit], config: EpisodeConfig, skip: set[int]) -> dict[int, int]:
    """Later unit -> the earlier unit of the same speaker it nearly repeats."""
    out: dict[int, int] = {}
    for j, new in enumerate(units):
        if j in skip:
            continue
        for i in range(j):
            if (i not in out and i not in skip and units[i].speaker == new.speaker
                    and _cos(units[i].vector, new.vector) >= config.duplicate_threshold):
                out[j] = i
                break
    return out


def _later(old: Unit, new: Unit) -> bool:
    if old.time is not None and new.time is not None and old.time != new.time:
        return new.time > old.time
    return new.order > old.order


def representation(unit: Unit, linked: list[Unit]) -> str:
    """What the Caller matches a question against: label (tags), summary and the links' tags."""
    label = ", ".join(unit.tags)
    links = "; ".join(", ".join(u.tags[:3]) for u in linked if u.tags)
    parts = [label, unit.summary] + ([f"related: {links}"] if links else [])
    return "\n".join(p for p in parts if p)
