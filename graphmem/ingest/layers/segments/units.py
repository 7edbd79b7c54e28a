"""Memory segments of one round of dialogue (MMS), and the two units built from them.

A round is the short-term memory: one turn, or a turn and the reply to it
(``GRAPHMEM_SEGMENTS_ROUND``). From it come four segments:

- keywords: the named entities and noun phrases of what was said (the speakers' names are in
  the round already; repeated as keywords they made every short turn of a speaker match any
  question naming that speaker);
- perspectives: what the round shows about a person, written as the questions it answers
  (:mod:`graphmem.ingest.layers.segments.perspectives`);
- episodic: what happened, when: the round's statements (from the EDU layer, names and
  relative dates already resolved) that are dated, in the past or in the future, each headed
  by the session's day;
- semantic: the lasting facts: the round's other statements, without the interjections and
  fillers that opened them.

With an LLM, one call per round writes all four instead (``memory_segments``); a reply that is
unusable leaves that round to the rules. A retrieval unit joins the segments chosen by
``GRAPHMEM_SEGMENTS_RETRIEVAL`` and is embedded: by default round, perspectives, episodic and
semantic, which measured better than the paper's keywords, round, perspectives, episodic. Its
context unit joins ``GRAPHMEM_SEGMENTS_CONTEXT`` (keywords, round, perspectives, semantic, as in
the paper) and is what a context shows.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import Field, field_validator

from graphmem.ingest.layer import LayerOptions
from graphmem.ingest.layers.segments.perspectives import perspectives
from graphmem.models import SessionRecord, TurnRecord
from graphmem.prompts import memory_segments
from graphmem.providers.llm import LLM
from graphmem.providers.nlp import parse
from graphmem.text import arguments_of, display_name, format_date, turn_line

Part = Literal["keywords", "round", "perspectives", "episodic", "semantic"]
PARTS: tuple[Part, ...] = ("keywords", "round", "perspectives", "episodic", "semantic")


class SegmentOptions(LayerOptions):
    """The segments layer's options, GRAPHMEM_SEGMENTS_*."""

    round: Literal["turn", "pair"] = Field(
        default="turn", description="MMS: a round is one turn, or a turn and its reply")
    retrieval: str = Field(
        default="round,perspectives,episodic,semantic",
        description="MMS: the segments a retrieval unit embeds (of keywords, round, "
        "perspectives, episodic, semantic; the paper: keywords,round,perspectives,episodic)")
    context: str = Field(default="keywords,round,perspectives,semantic",
                         description="MMS: the segments a context unit shows")

    @field_validator("retrieval", "context")
    @classmethod
    def _check_parts(cls, value: str) -> str:
        names = [n.strip() for n in value.split(",") if n.strip()]
        unknown = [n for n in names if n not in PARTS]
        if unknown or not names:
            raise ValueError(f"segment parts {unknown or value!r}: choose from "
                             f"{', '.join(PARTS)}")
        return ",".join(n for n in PARTS if n in names)
MAX_KEYWORDS = 12
FILLERS = {"so", "well", "oh", "yeah", "yes", "wow", "hey", "hi", "thanks", "btw", "anyway",
           "haha", "lol", "ok", "okay", "also", "and", "but", "actually", "honestly", "um"}
LABELS = {"keywords": "Keywords", "perspectives": "Perspectives", "episodic": "Events",
          "semantic": "Facts"}


@dataclass(frozen=True)
class SegmentConfig:
    round_turns: int = 1  # 1: a round is one turn; 2: a turn and its reply
    # measured on LoCoMo dev: keywords lowered recall, semantic statements raised it (see
    # docs/results-mms.md); the paper's retrieval unit is keywords, round, perspectives, episodic
    retrieval: tuple[Part, ...] = ("round", "perspectives", "episodic", "semantic")
    context: tuple[Part, ...] = ("keywords", "round", "perspectives", "semantic")

    @classmethod
    def of(cls, options: SegmentOptions) -> SegmentConfig:
        return cls(1 if options.round == "turn" else 2, parse_parts(options.retrieval),
                   parse_parts(options.context))


def parse_parts(spec: str) -> tuple[Part, ...]:
    """Parts named in ``spec`` (checked by the options), in the one order units are written."""
    names = {n.strip() for n in spec.split(",")}
    return tuple(n for n in PARTS if n in names)


@dataclass(frozen=True)
class Round:
    session: SessionRecord
    turns: tuple[TurnRecord, ...]

    @property
    def key(self) -> str:
        return self.turns[0].source_id

    def text(self) -> str:
        return "\n".join(turn_line(display_name(t.speaker), t.text, t.image_caption)
                         for t in self.turns)


@dataclass(frozen=True)
class Segments:
    keywords: tuple[str, ...]
    perspectives: tuple[str, ...]
    episodic: tuple[str, ...]
    semantic: tuple[str, ...]


def rounds(session: SessionRecord, size: int) -> list[Round]:
    """The session's turns cut into consecutive rounds of ``size`` turns (the last may be
    shorter)."""
    turns = list(session.turns)
    return [Round(session, tuple(turns[i:i + size])) for i in range(0, len(turns), size)]


def _statement_kind(doc: Any) -> Literal["episodic", "semantic", "none"]:
    if doc.text.rstrip().endswith("?") or sum(t.is_alpha for t in doc) < 3:
        return "none"
    root = doc[:].root
    dated = "(" in doc.text or any(e.label_ in {"DATE", "TIME"} for e in doc.ents)
    future = any(t.lower_ in {"will", "'ll", "going"} for t in doc if t.dep_ == "aux")
    return "episodic" if dated or future or root.tag_ in {"VBD", "VBN"} else "semantic"


def as_fact(doc: Any) -> str:
    """A statement without its opening interjections and fillers, ending in a full stop."""
    start = 0
    while start < len(doc) and (doc[start].pos_ in {"INTJ", "PUNCT"}
                                or doc[start].lower_ in FILLERS):
        start += 1
    text = doc[start:].text.strip() if start < len(doc) else doc.text.strip()
    text = re.sub(r"[!]+$", ".", text)
    return text[:1].upper() + text[1:]


def round_words(rnd: Round) -> str:
    """What a round's keywords are taken from: its turns' texts and image captions."""
    return " ".join(t.text + (f" {t.image_caption}" if t.image_caption else "")
                    for t in rnd.turns)


def rule_segments(rnd: Round, statements: Sequence[str], names: frozenset[str]) -> Segments:
    """The four segments of a round from its statements, by the rules of this module."""
    keywords = dict.fromkeys(arguments_of(parse([round_words(rnd)])[0][:]))
    day = format_date(rnd.session.started_at)
    seen_questions: dict[str, None] = {}
    episodic: list[str] = []
    semantic: list[str] = []
    for doc in parse(statements):
        kind = _statement_kind(doc)
        if kind == "none":
            continue
        seen_questions.update(dict.fromkeys(perspectives(doc[:], names)))
        if kind == "episodic":
            episodic.append(f"[{day}] {doc.text}" if day else doc.text)
        else:
            semantic.append(as_fact(doc))
    return Segments(tuple(list(keywords)[:MAX_KEYWORDS]), tuple(seen_questions),
                    tuple(episodic), tuple(semantic))


def llm_segments(llm: LLM | None, rounds_: Sequence[Round], previous: Sequence[str],
                 fallback: Sequence[Segments], notes: list[str]) -> list[Segments]:
    """The LLM's segments of each round (one call each); the rules' where a reply fails."""
    if llm is None or not rounds_:
        return list(fallback)
    requests = [memory_segments.messages(format_date(r.session.started_at), before, r.text())
                for r, before in zip(rounds_, previous, strict=True)]
    replies = memory_segments.STEP.run_batch(
        llm, requests, accept=_accepted, notes=notes,
        where=lambda i: f"segments of round {rounds_[i].key}")
    return [reply if reply is not None else rules
            for reply, rules in zip(replies, fallback, strict=True)]


def _accepted(reply: memory_segments.SegmentsOutput) -> Segments:
    def clean(items: list[str]) -> tuple[str, ...]:
        return tuple(dict.fromkeys(i.strip() for i in items if i.strip()))

    found = Segments(tuple(k.lower() for k in clean(reply.keywords))[:MAX_KEYWORDS],
                     clean(reply.perspectives), clean(reply.episodic), clean(reply.semantic))
    if not (found.keywords or found.episodic or found.semantic):
        raise ValueError("the reply holds no segment")
    return found


def compose(parts: Sequence[Part], rnd: Round, segments: Segments, *, dated: bool) -> str:
    """A unit's text: the chosen parts in order, each labelled (the round as its turns,
    headed by the session's day when ``dated``)."""
    lines: list[str] = []
    for part in parts:
        if part == "round":
            day = format_date(rnd.session.started_at)
            text = rnd.text()
            lines.append(f"[{day}] {text}" if dated and day else text)
            continue
        items: tuple[str, ...] = getattr(segments, part)
        if items:
            joiner = "; " if part == "keywords" else " "
            lines.append(f"{LABELS[part]}: {joiner.join(items)}")
    return "\n".join(lines)
