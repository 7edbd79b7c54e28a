"""Cognitive perspectives on a statement, without an LLM: the questions it could answer.

MMS keeps, beside a round of dialogue, several views of what the round shows about a person
(preferences, feelings, plans, relationships, habits, who they are), so that a later question
asked from one of those angles meets the stored unit in its own words. The LLM-free path here
reads each statement's dependency parse and writes the questions that the statement answers,
in the form people ask them: "When did Caroline go to the support group?", "What does
Melanie like?", "Who is Jon's sister?". A statement gives at most ``MAX_PER_STATEMENT``.

The statement must name its subject (the EDU layer has already replaced I and you by the
speakers' names); a statement about "he" or "it" gives no question, since the question would
not say whom it is about.
"""

from __future__ import annotations

from typing import Any

MAX_PER_STATEMENT = 4

PREFERENCE_VERBS = {"like", "love", "enjoy", "prefer", "adore", "hate", "dislike", "fancy"}
FEELING_VERBS = {"feel", "be", "get", "seem", "become"}
PLAN_VERBS = {"plan", "want", "hope", "intend", "aim", "wish", "dream", "consider", "decide",
              "prepare", "look"}
HABIT_WORDS = {"always", "usually", "often", "regularly", "sometimes", "daily", "weekly",
               "every", "frequently", "normally", "routinely"}
RELATION_WORDS = {"mom", "mum", "mother", "dad", "father", "parent", "parents", "sister",
                  "brother", "sibling", "husband", "wife", "partner", "boyfriend", "girlfriend",
                  "friend", "friends", "son", "daughter", "kid", "kids", "child", "children",
                  "grandma", "grandpa", "grandmother", "grandfather", "aunt", "uncle", "cousin",
                  "colleague", "coworker", "boss", "neighbor", "neighbour", "family", "fiance",
                  "fiancee", "mentor", "roommate", "pet", "dog", "cat"}
MOTION_VERBS = {"go", "come", "get", "have", "do"}  # "What did X go?" asks nothing
PLACE_LABELS = {"GPE", "LOC", "FAC"}
SUBJECTS = {"nsubj", "nsubjpass"}


def _named(token: Any, names: frozenset[str]) -> bool:
    return token.pos_ == "PROPN" or token.ent_type_ == "PERSON" or token.text in names


def _subject(root: Any, names: frozenset[str]) -> Any | None:
    """The named subject of the clause (a name, or a thing of a named owner: "Jon's sister")."""
    for child in root.children:
        if child.dep_ in SUBJECTS:
            return child if any(_named(t, names) for t in child.subtree) else None
    return None


def _owner(subject: Any, names: frozenset[str]) -> str:
    """Whose relation a question asks about: the subject, or its named possessor."""
    for token in subject.subtree:
        if token.dep_ == "poss" and _named(token, names):
            return " ".join(t.text for t in token.subtree if t.dep_ != "case")
    return _span_text(subject)


def _span_text(token: Any) -> str:
    words = [t for t in token.subtree if t.dep_ not in {"punct", "appos"}]
    return " ".join(t.text for t in words).replace(" 's", "'s").strip()


def _object(root: Any) -> tuple[str, bool]:
    """What the verb acts on, and whether that is a direct object (else the phrase of its
    first preposition, or '')."""
    for child in root.children:
        if child.dep_ in {"dobj", "xcomp", "ccomp"}:
            return _span_text(child), child.dep_ == "dobj"
    for child in root.children:
        if child.dep_ == "prep" and (objects := [c for c in child.children if c.dep_ == "pobj"]):
            return f"{child.text} {_span_text(objects[0])}", False
    return "", False


def _aux(root: Any) -> str | None:
    """The auxiliary a question about this clause takes: did, does, do or will (None: other)."""
    if any(c.lower_ in {"will", "'ll"} for c in root.children if c.dep_ == "aux"):
        return "will"
    if root.tag_ in {"VBD", "VBN"}:
        return "did"
    if root.tag_ == "VBZ":
        return "does"
    if root.tag_ == "VBP":
        return "do"
    return None


def _has_future(root: Any) -> bool:
    aux = {c.lower_ for c in root.children if c.dep_ in {"aux", "auxpass"}}
    return "will" in aux or "'ll" in aux or ("going" in aux) or root.lemma_ in PLAN_VERBS


def perspectives(sentence: Any, names: frozenset[str] = frozenset()) -> list[str]:
    """Questions that ``sentence`` (a parsed spaCy span) answers, most specific first.
    ``names``: the speakers, which the small parser does not always tag as proper nouns."""
    root = sentence.root
    if root.pos_ not in {"VERB", "AUX"} or sentence.text.rstrip().endswith("?"):
        return []
    subject = _subject(root, names)
    if subject is None:
        return []
    who = _span_text(subject)
    verb, aux = root.lemma_.lower(), _aux(root)
    thing, direct = _object(root)
    words = {t.lower_ for t in sentence}
    lemmas = {t.lemma_.lower() for t in sentence}
    dated = any(e.label_ in {"DATE", "TIME"} for e in sentence.ents) or "(" in sentence.text
    places = [e.text for e in sentence.ents if e.label_ in PLACE_LABELS]
    out: list[str] = []
    action = f"{verb} {thing}".strip()
    if aux and verb != "be":
        if dated:
            out.append(f"When {aux} {who} {action}?")
        if places:
            out.append(f"Where {aux} {who} {verb}?")
        if direct and verb not in MOTION_VERBS:
            out.append(f"What {aux} {who} {verb}?")
    if verb in PREFERENCE_VERBS or "favorite" in words or "favourite" in words:
        out.append(f"What does {who} like?")
    if verb in FEELING_VERBS and any(c.dep_ == "acomp" for c in root.children):
        out.append(f"How does {who} feel?")
    if _has_future(root) and aux != "will":
        out.append(f"What is {who} planning to do?")
    if words & HABIT_WORDS:
        out.append(f"What does {who} usually do?")
    related = sorted((words | lemmas) & RELATION_WORDS)
    if related:
        out.append(f"Who is {_owner(subject, names)}'s {related[0]}?")
    if verb == "be" and any(c.dep_ == "attr" for c in root.children):
        out.append(f"Who is {who}?")
    return list(dict.fromkeys(out))[:MAX_PER_STATEMENT]
