"""Text rules that the write path and the read path share, so both spell things one way.

- how a turn reads: its words with a shared image's caption (:func:`turn_text`), with its
  speaker (:func:`turn_line`: what turns, events and chunks embed and show), and with its
  session's day (:func:`render_turn`: what a context shows);
- days (:func:`format_date`) and the driver's time values (:func:`native_datetime`);
- speaker names (:func:`display_name`);
- arguments: how an entity or noun phrase is normalised so that the same thing said twice is
  one node (:func:`normalise_argument`, :func:`arguments_of`), for stored statements and for
  the mentions of a question alike;
- Lucene terms of a question (:func:`lucene_terms`);
- characters and places: the key a name or a place is compared by (:func:`character_key`,
  :func:`place_key`) and a space's cast of characters with its fuzzy merge of names
  (:class:`Cast`), for the scenes layer and the strategies that match a question's persons;
- who is who: the names speakers are called by in the conversation itself
  (:func:`speaker_aliases`).

This module imports nothing else of graphmem, so any module may use it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

_WORD = re.compile(r"\w+")
MAX_QUERY_TERMS = 256

# Named-entity labels that are quantities or times, not things a statement is about.
SKIP_ENTITIES = {"CARDINAL", "ORDINAL", "PERCENT", "MONEY", "QUANTITY", "TIME", "DATE"}
# Words dropped from the front of an argument: "my new guitar" and "the guitar" are one thing.
LEADING_WORDS = {"a", "an", "the", "my", "your", "his", "her", "their", "our", "its", "this",
                 "that", "these", "those", "some", "any", "every", "each", "all", "another",
                 "many", "much", "few", "several", "more", "most", "lots", "lot", "of", "such"}


def format_date(value: datetime | None) -> str:
    """A short, unambiguous day: ``8 May 2023`` (empty when unknown)."""
    return f"{value.day} {value:%B %Y}" if value is not None else ""


def native_datetime(value: Any) -> datetime | None:
    """A Python datetime from what the Neo4j driver returns (its time types, or None)."""
    native = value.to_native() if value is not None and hasattr(value, "to_native") else value
    return native if isinstance(native, datetime) else None


def naive_utc(value: datetime) -> datetime:
    """A time as the graph stores and compares times: in UTC, without a zone (a naive time is
    taken to be UTC already)."""
    return value.astimezone(UTC).replace(tzinfo=None) if value.tzinfo else value


def display_name(speaker: str) -> str:
    """LongMemEval's roles read better capitalised: user -> User."""
    return speaker.capitalize() if speaker in {"user", "assistant"} else speaker


def turn_text(text: str, image_caption: str | None = None) -> str:
    """What was said, with the caption of an image shared with it."""
    return f"{text} [shares an image: {image_caption}]" if image_caption else text


def turn_line(speaker: str, text: str, image_caption: str | None = None) -> str:
    """A turn as one line, ``speaker: text [shares an image: caption]``."""
    return f"{speaker}: {turn_text(text, image_caption)}"


def render_turn(speaker: str, text: str, started_at: datetime | None,
                image_caption: str | None = None) -> str:
    """A turn as a context shows it: the session's day first, when known."""
    day = format_date(started_at)
    line = turn_line(speaker, text, image_caption)
    return f"[{day}] {line}" if day else line


def lucene_terms(question: str) -> str:
    """The question as plain Lucene terms: no operators, quotes or wildcards survive."""
    return " ".join(_WORD.findall(question.lower())[:MAX_QUERY_TERMS])


def normalise_argument(span: Any) -> str | None:
    """A spaCy span as an argument: leading determiners, possessives and numbers dropped, the
    head word lemmatised, lower case; None when nothing contentful is left."""
    words = [t for t in span if not (t.is_punct or t.is_space)]
    while words and (words[0].lower_ in LEADING_WORDS or words[0].like_num
                     or words[0].pos_ in {"DET", "PRON", "ADV", "NUM"}):
        words = words[1:]
    if not words or all(t.is_stop or t.pos_ == "PRON" for t in words):
        return None
    text = " ".join(t.lemma_.lower() if t is words[-1] else t.lower_ for t in words)
    text = re.sub(r"\s+", " ", text).strip(" '\"-")
    return text if len(text) > 1 else None


def arguments_of(span: Any) -> tuple[str, ...]:
    """The arguments of a spaCy span (a sentence or a question): its named entities that are
    not quantities or times, then its noun phrases, normalised and deduplicated in order."""
    found: dict[str, None] = {}
    for ent in span.ents:
        if ent.label_ not in SKIP_ENTITIES and (arg := normalise_argument(ent)):
            found.setdefault(arg, None)
    for chunk in span.noun_chunks:
        if chunk.root.pos_ != "PRON" and (arg := normalise_argument(chunk)):
            found.setdefault(arg, None)
    return tuple(found)


# ---------------------------------------------------------------------- characters, places
MERGE_SCORE = 85.0  # rapidfuzz WRatio at which a mention joins a known character
_POSSESSIVE = re.compile(r"(?:'s|’s|')$")
_SPACES = re.compile(r"\s+")


def character_key(name: str) -> str:
    """What identifies a character inside its space: the name in lower case, without a
    possessive ending or extra spaces."""
    return _SPACES.sub(" ", _POSSESSIVE.sub("", name.strip())).strip().lower()


def place_key(place: str) -> str:
    """A place compared without its article or case: "the Grand Canyon" is "grand canyon"."""
    words = place.strip().lower().split()
    return " ".join(words[1:] if words[:1] == ["the"] else words)


class Cast:
    """The characters of one space: a display name per key, and the fuzzy merge of new names
    into known ones (speakers and stored characters are known first); ``aliases`` maps a
    name a character is also called by (lower case) to its key, and wins over the fuzzy
    match."""

    def __init__(self, known: Iterable[str] = (),
                 aliases: dict[str, Iterable[str]] | None = None) -> None:
        self.names: dict[str, str] = {}
        self.aliases: dict[str, str] = {}
        for name in known:
            self.add(name)
        for name, called in (aliases or {}).items():
            key = self.add(name)
            for alias in called:
                self.aliases.setdefault(alias.lower(), key)

    def add(self, name: str) -> str:
        key = character_key(name)
        if key and key not in self.names:
            self.names[key] = _POSSESSIVE.sub("", name.strip())
        return key

    def resolve(self, mention: str) -> str:
        """The key of the character ``mention`` names, a new one when nobody known matches."""
        from rapidfuzz import fuzz, process, utils

        key = character_key(mention)
        if not key or key in self.names:
            return key
        if key in self.aliases:
            return self.aliases[key]
        best = process.extractOne(key, list(self.names), scorer=fuzz.WRatio,
                                  processor=utils.default_process, score_cutoff=MERGE_SCORE)
        return str(best[0]) if best is not None else self.add(mention)

    def match(self, text: str) -> list[str]:
        """Keys of the known characters ``text`` names (no new one is made)."""
        from rapidfuzz import fuzz, process, utils

        if character_key(text) in self.aliases:
            return [self.aliases[character_key(text)]]
        found = process.extractOne(character_key(text), list(self.names), scorer=fuzz.WRatio,
                                   processor=utils.default_process, score_cutoff=MERGE_SCORE)
        return [str(found[0])] if found is not None else []


# ---------------------------------------------------------------------------- who is who
_NAME = r"([A-Z][a-z]{1,14})"
_OPENERS = (r"hi|hey|hello|hiya|heya|yo|morning|evening|good (?:morning|evening|night)|"
            r"thanks|thank you|thx|bye|congrats|congratulations|aww*|oh|wow|omg|sorry|"
            r"welcome back|dear|happy birthday")
# "Hey Kate!", "Thanks, Kate.", "Morning Jo, ..." at the start of a turn
_GREETED = re.compile(rf"^\W*(?:{_OPENERS})[\s,!.]+{_NAME}(?=\s*(?:[!,.?:;)]|$))",
                      re.IGNORECASE)
# "..., Kate!" at the end of a turn
_CLOSING = re.compile(rf",\s*{_NAME}\s*[!.?]*\W*$")
_INTRODUCED = re.compile(rf"\b(?:my name is|my name's|call me)\s+{_NAME}\b",
                         re.IGNORECASE)
# words a vocative position holds that are not names
_NOT_NAMES = """
i i'm im god lord guys man dude bro sis babe baby honey dear everyone everybody all team buddy
pal mate friend friends love sweetie girl girls boys folks sir madam mom mum dad ma pa yes no
monday tuesday wednesday thursday friday saturday sunday january february march april may
june july august september october november december today tonight tomorrow yesterday
haha lol wow omg thanks thank hey hi hello oh so well there again too
"""
NOT_NAMES = frozenset(_NOT_NAMES.split())


def _candidates(text: str) -> tuple[list[str], list[str]]:
    """Names ``text`` calls its addressee by, and names its speaker gives as their own."""
    def names(found: Iterable[str]) -> list[str]:
        return [n for n in found if n.lower() not in NOT_NAMES]

    called = names(m.group(1) for rx in (_GREETED, _CLOSING) if (m := rx.search(text)))
    own = names(m.group(1) for m in _INTRODUCED.finditer(text))
    return called, own


def speaker_aliases(turns: Iterable[tuple[str, str]]) -> dict[str, list[str]]:
    """The names each speaker is called by in a conversation (``turns``: (speaker, text) in
    spoken order, sessions one after another), beyond the words of their own label: a name
    another speaker greets or thanks them by (the addressee is the other speaker of a
    two-person conversation; with more, the last other speaker before it, else the first
    after it), and a name they introduce themselves by. With more than two speakers a
    name must be heard twice. A name that is a word of another speaker's label, that points
    at two speakers, or that the conversation also writes in lower case ("Wow, Fantastic!",
    "Thanks, Cool") is nobody's alias."""
    said = list(turns)
    lower = {w for _, text in said for w in _WORD.findall(text) if w.islower()}
    speakers = list(dict.fromkeys(s for s, _ in said))
    own_words = {s: {w.lower() for w in _WORD.findall(s)} for s in speakers}
    heard: dict[str, dict[str, int]] = {}

    def note(speaker: str | None, name: str) -> None:
        if speaker is not None:
            counts = heard.setdefault(name.lower(), {})
            counts[speaker] = counts.get(speaker, 0) + 1

    for i, (speaker, text) in enumerate(said):
        called, own = _candidates(text)
        for name in own:
            note(speaker, name)
        if not called:
            continue
        others = [s for s in speakers if s != speaker]
        to: str | None
        if len(speakers) == 2:
            to = others[0]
        else:
            before = next((s for s, _ in reversed(said[:i]) if s != speaker), None)
            after = next((s for s, _ in said[i + 1:] if s != speaker), None)
            to = before if before is not None else after
        for name in called:
            note(to, name)
    out: dict[str, list[str]] = {s: [] for s in speakers}
    need = 1 if len(speakers) <= 2 else 2
    for name, counts in sorted(heard.items()):
        if len(counts) != 1:
            continue
        (speaker, count), = counts.items()
        taken = any(name in words for s, words in own_words.items() if s != speaker)
        if count >= need and not taken and name not in own_words[speaker] \
                and name not in lower:
            out[speaker].append(name)
    return {s: names for s, names in out.items() if names}

TOKEN_PATTERN = re.compile(r"\w+|[^\w\s]")


def count_tokens(text: str) -> int:
    """Tokens as every budget counts them: words and single punctuation marks."""
    return sum(1 for _ in TOKEN_PATTERN.finditer(text))
