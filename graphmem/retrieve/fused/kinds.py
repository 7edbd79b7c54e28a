"""Questions that ask for every item of a kind, and the kind they ask for.

"Which countries has Maria been to?" is answered by turns that name a country ("we spent a
week in Portugal"), weeks apart, and most of them share no word with the question. The kind
("countries"; "European countries", "yoga" for "types of yoga", "music events") is read from
the question's parse; the fused strategy ranks the space's turns by their closeness to it
(:func:`graphmem.retrieve.fused.candidates.gather`), brings the closest among the candidates
and gives the ranker each candidate's closeness and rank (``kind`` features).
"""

from __future__ import annotations

import re
from typing import Any

_LIST = re.compile(r"\b(list|all the|both|kinds of|types of|what are some|some of the)\b",
                   re.IGNORECASE)
_WH = {"what", "which"}
_SORT = {"type", "kind", "sort", "variety"}  # "types of yoga": the kind is yoga
_MODIFIERS = {"amod", "compound", "nmod"}
_NOUN_TAGS = {"NN", "NNS", "NNP", "NNPS"}


def asks_for_list(doc: Any) -> bool:
    """Whether a parsed question asks for every item of a kind: "What books has she read?",
    "Which countries...", "What do both of them play?", "What kinds of art..." (a plural
    noun right after its wh-word, or words that ask for several)."""
    if _LIST.search(doc.text):
        return True
    words = list(doc)
    if not words or words[0].lower_ not in _WH:
        return False
    for word in words[1:4]:
        if word.tag_ in {"NNS", "NNPS"}:
            return True
        if word.pos_ in {"VERB", "AUX"}:
            return False
    return False


def question_kind(doc: Any) -> str | None:
    """The kind a list question asks for, with the words that narrow it ("European
    countries", "writing classes"); None when the question asks for no list or names no
    kind ("What did he bake?")."""
    if not asks_for_list(doc):
        return None
    head = _asked_noun(doc)
    if head is None:
        return None
    if head.lemma_.lower() in _SORT:
        head = next((p for c in head.children if c.dep_ == "prep" and c.lower_ == "of"
                     for p in c.children if p.dep_ == "pobj"), None)
        if head is None:
            return None
    narrowing = [t for t in head.lefts if t.dep_ in _MODIFIERS and t.lower_ not in _WH]
    return " ".join(t.text for t in [*narrowing, head])


def _asked_noun(doc: Any) -> Any | None:
    """The noun the question's wh-word (or "some"/"all the") is about: the first noun of its
    first few words, before the verb."""
    words = list(doc)
    for word in words[1:5]:
        if word.tag_ in _NOUN_TAGS and word.pos_ != "PROPN":
            while word.dep_ in _MODIFIERS and word.head.tag_ in _NOUN_TAGS:
                word = word.head  # "board games": the kind is games, narrowed by board
            return word
        if word.pos_ == "VERB":
            return None
    return None
