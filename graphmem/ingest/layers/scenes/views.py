"""CAST's views and characters (seed 004), without an LLM.

A view is one turn seen with the ``w`` turns before and after it in its session: the time of
the central turn (its session's date), a place, its participants and its topic text.

- Places: the conversations carry no place labels, so a view's place is a location spaCy finds
  in its window (GPE, LOC or FAC; the central turn's own first, else the latest one said). A
  view that names none keeps the last known place of its session; before the first one the
  place is unknown.
- Participants: the speakers of the window's turns and the persons its turns mention. A
  person is a spaCy PERSON entity whose words the conversation never writes in lower case:
  chat capitalises "Glad", "Nah" or "Art" at a sentence's start and the tagger takes them for
  names, but a real name is never written "glad".
- Characters: one per normalised name. A mention joins a known character when rapidfuzz's
  WRatio scores it at least ``MERGE_SCORE`` ("Mel" and "Bye Caroline" join "Melanie" and
  "Caroline"), speakers and the space's stored characters first; otherwise it is a new one.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from graphmem.models import ConversationRecord, SessionRecord, TurnRecord
from graphmem.providers.nlp import parse
from graphmem.text import Cast, character_key, display_name, turn_line

PLACE_LABELS = {"GPE", "LOC", "FAC"}
_WORD = re.compile(r"[A-Za-z]+")


@dataclass(frozen=True)
class TurnFacts:
    """What spaCy finds in one turn: the persons it mentions and the places it names."""

    persons: tuple[str, ...]
    places: tuple[str, ...]


@dataclass(frozen=True)
class View:
    index: int  # position in the conversation, in time order
    session: SessionRecord
    turn: TurnRecord  # the central turn
    window: tuple[TurnRecord, ...]
    place: str | None
    speakers: tuple[str, ...]  # character keys of the window's speakers
    mentioned: tuple[str, ...]  # character keys of persons named but not speaking there

    @property
    def time(self) -> datetime | None:
        return self.session.started_at

    @property
    def speaker(self) -> str:
        return character_key(display_name(self.turn.speaker))

    @property
    def participants(self) -> tuple[str, ...]:
        return self.speakers + self.mentioned

    def text(self) -> str:
        """The topic text: the window's turns, one line each."""
        return "\n".join(turn_line(display_name(t.speaker), t.text, t.image_caption)
                         for t in self.window)


def turn_facts(conv: ConversationRecord) -> dict[str, TurnFacts]:
    """Persons and places of every turn of ``conv``, by the turn's source id."""
    turns = [t for s in conv.sessions for t in s.turns]
    lowered = {w for t in turns for w in _WORD.findall(t.text) if w.islower()}
    facts: dict[str, TurnFacts] = {}
    for turn, doc in zip(turns, parse([t.text for t in turns]), strict=True):
        persons = [e.text for e in doc.ents if e.label_ == "PERSON"
                   and not any(w.lower() in lowered for w in _WORD.findall(e.text))]
        places = [e.text for e in doc.ents if e.label_ in PLACE_LABELS]
        facts[turn.source_id] = TurnFacts(tuple(persons), tuple(places))
    return facts


def build_views(conv: ConversationRecord, facts: dict[str, TurnFacts], cast: Cast,
                window: int = 1) -> list[View]:
    """Every turn of ``conv`` as a view over ``window`` turns either side, within its session."""
    for speaker in conv.speakers:
        cast.add(display_name(speaker))
    views: list[View] = []
    for session in conv.sessions:
        place: str | None = None
        turns = session.turns
        for i, turn in enumerate(turns):
            seen = turns[max(0, i - window): i + window + 1]
            place = _place(turn, seen, facts) or place
            speakers = tuple(dict.fromkeys(character_key(display_name(t.speaker))
                                           for t in seen))
            named = (cast.resolve(p) for t in seen for p in facts[t.source_id].persons)
            mentioned = tuple(k for k in dict.fromkeys(named) if k and k not in speakers)
            views.append(View(len(views), session, turn, tuple(seen), place, speakers,
                              mentioned))
    return views


def _place(turn: TurnRecord, seen: Sequence[TurnRecord],
           facts: dict[str, TurnFacts]) -> str | None:
    own = facts[turn.source_id].places
    if own:
        return own[0]
    named = [p for t in seen for p in facts[t.source_id].places]
    return named[-1] if named else None
