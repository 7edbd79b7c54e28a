"""A question about two or more people or things, split into one question per part.

"What movies have both Joanna and Nate seen?" is answered by what Joanna said of films and by
what Nate said, often weeks apart: one ranking for the whole question tends to fill its top
with one of them. The fused strategy ranks the turns for each part too ("What movies have
Joanna seen?", "What movies have Nate seen?") and keeps each turn's best rank, so both halves
reach the ranker (:func:`graphmem.retrieve.fused.candidates.gather`).

A coordination is split when its members are names ("Nike and Gatorade", "Tim or John"), or
nouns the question asks about each of ("both the dog and the cat"). One that a possessive
ties to a name ("Caroline and her family") is one group doing one thing, and is left whole.
"""

from __future__ import annotations

import re
from typing import Any

MAX_PARTS = 3
_TIGHT = re.compile(r"\s+([?.!,;:'’]|n't)")  # no space before punctuation or a clitic
_EACH = {"both", "either", "together"}  # words that only say the parts go together


def question_parts(doc: Any) -> tuple[str, ...]:
    """One question per member of the first coordination worth splitting in a parsed
    question (spaCy ``Doc``), in the order said; () when there is none."""
    asks_each = any(t.lower_ in {"both", "either"} for t in doc)
    for head in doc:
        if head.dep_ == "conj" or not head.conjuncts:
            continue
        members = [head, *head.conjuncts][:MAX_PARTS]
        if not _splittable(members, asks_each):
            continue
        owned = {m.i: _own(m, head) for m in members}
        glue = {t.i for t in head.subtree
                if t.dep_ in {"cc", "preconj", "punct"} and t.head.i in owned}
        glue |= {t.i for t in doc if t.lower_ in _EACH}
        parts = []
        for member in members:
            dropped = glue.union(*(owned[m.i] for m in members if m is not member))
            kept = " ".join(t.text for t in doc if t.i not in dropped)
            parts.append(_TIGHT.sub(r"\1", kept).strip())
        return tuple(dict.fromkeys(p for p in parts if p))
    return ()


def _splittable(members: list[Any], asks_each: bool) -> bool:
    if any(m.pos_ not in {"PROPN", "NOUN"} for m in members):
        return False
    if any(c.dep_ == "poss" for m in members for c in m.children):
        return False
    return asks_each or all(m.pos_ == "PROPN" for m in members)


def _own(member: Any, head: Any) -> set[int]:
    """The tokens that belong to one member alone: for the first (the head of the
    coordination), itself and what precedes it in its subtree (its determiners, compounds,
    adjectives); for the others, their subtree without the members hanging from them."""
    if member is head:
        return {t.i for t in member.subtree if t.i <= member.i and t.dep_ != "preconj"}
    nested = {t.i for c in member.children if c.dep_ == "conj" for t in c.subtree}
    return {t.i for t in member.subtree} - nested
