"""What ES-Mem's Stage 1 knows of a turn: a short topic and its keywords (LLM-free: from spaCy).

Shared by the segmenter and the boundary model, which both read topics.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass

from graphmem.providers.nlp import parse

KEYWORD_POS = {"NOUN", "PROPN", "VERB", "ADJ", "NUM"}
MAX_KEYWORDS = 8
_SPACES = re.compile(r"\s+")
_MEMO_SIZE = 20_000
_topics: dict[str, TurnTopic] = {}  # by text, oldest first
_lock = threading.Lock()


@dataclass(frozen=True)
class TurnTopic:
    """What Stage 1 knows of a turn: a short topic and its keywords."""

    topic: str
    keywords: tuple[str, ...]
    terms: tuple[str, ...] = ()  # noun phrases for event summaries (rules); empty: keywords

    def describe(self) -> str:
        words = ", ".join(self.keywords)
        return f"{self.topic} ({words})" if words and self.topic else self.topic or words


def keywords(doc: object) -> tuple[str, ...]:
    """Content lemmas of a spaCy doc, most frequent first (ties by first use), deduplicated."""
    counts: dict[str, int] = {}
    for token in doc:  # type: ignore[attr-defined]
        if token.pos_ in KEYWORD_POS and not token.is_stop and token.is_alpha and len(token) > 1:
            lemma = token.lemma_.lower()
            counts[lemma] = counts.get(lemma, 0) + 1
    ranked = sorted(counts, key=lambda k: -counts[k])  # sorted is stable: first use breaks ties
    return tuple(ranked[:MAX_KEYWORDS])


def rule_topics(texts: Sequence[str]) -> list[TurnTopic]:
    """LLM-free topics: the first noun chunk (or keyword) as topic, content lemmas as keywords.
    Remembered by text, like the parses they come from."""
    cleaned = [_SPACES.sub(" ", t) for t in texts]
    with _lock:
        found = {t: _topics[t] for t in cleaned if t in _topics}
    missing = [t for t in dict.fromkeys(cleaned) if t not in found]
    for text, doc in zip(missing, parse(missing), strict=True):
        words = keywords(doc)
        chunks = [" ".join(t.lower_ for t in c if t.pos_ not in {"DET", "PRON"})
                  for c in doc.noun_chunks if c.root.pos_ in {"NOUN", "PROPN"}]
        chunks = [c for c in chunks if c]
        found[text] = TurnTopic(chunks[0] if chunks else (words[0] if words else ""), words,
                                tuple(dict.fromkeys(chunks))[:MAX_KEYWORDS])
    with _lock:
        _topics.update(found)
        while len(_topics) > _MEMO_SIZE:
            _topics.pop(next(iter(_topics)))
    return [found[t] for t in cleaned]


def topic_texts(texts: Sequence[str], topics: Sequence[TurnTopic]) -> list[str]:
    """What the LLM-free Stage 1 embeds for each turn: its topic and keywords and the turn
    itself. The previous turn is context only where the turn has no keywords of its own (a
    bare reply such as "lol" or "yes!" stays on the topic it answers); adding the previous
    keywords everywhere blurred real cuts on the TIAGE training split."""
    out = []
    for i, (text, topic) in enumerate(zip(texts, topics, strict=True)):
        line = f"{topic.describe()}: {text}"
        if i and not topic.keywords and topics[i - 1].keywords:
            line += f" | before: {', '.join(topics[i - 1].keywords)}"
        out.append(line)
    return out
