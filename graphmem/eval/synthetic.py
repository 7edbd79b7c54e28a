"""Synthetic conversations at any size, recombined from real ones, for scale benchmarks.

A synthetic conversation is a run of consecutive sessions of a real conversation with new
speaker names (in the speaker field and in the text) and its dates moved by a random number
of days. Each synthetic turn line is registered in a :class:`PoolEmbedder` with the vector
of the real line it was made from, so that growing a database to a million turns costs no
model time; anything not in the pool (planted facts, questions) is embedded by the model.
Planted facts are new turns, each saying one unique value, with a question that names the
speaker and asks for it.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import timedelta

import numpy as np

from graphmem.models import ConversationRecord, SessionRecord, TurnRecord
from graphmem.providers.embedder import Embedder, Vectors
from graphmem.text import turn_line

NAMES = ("Avery", "Bianca", "Caleb", "Dalia", "Emeka", "Freya", "Gideon", "Hana", "Idris",
         "Jolene", "Kofi", "Lucia", "Mateo", "Nadia", "Oskar", "Priya", "Quentin", "Rosa",
         "Soren", "Tamsin", "Umar", "Vera", "Wendell", "Ximena", "Yusuf", "Zora")
FACTS = (  # (what is said, what is asked), each with {value}; the question names the speaker
    ("By the way, my locker at the climbing gym is number {value}.",
     "What is {name}'s locker number at the climbing gym?"),
    ("Note to self: the code for the garden shed is {value}.",
     "What is the code of {name}'s garden shed?"),
    ("My new library card number is {value}, finally got it.",
     "What is {name}'s library card number?"),
    ("The parking permit they gave me is {value}.",
     "What is the number of {name}'s parking permit?"),
    ("I booked seat {value} for the ferry to the islands.",
     "Which seat did {name} book on the ferry?"),
    ("The repair shop gave my bike the ticket {value}.",
     "What ticket did the repair shop give {name}'s bike?"),
    ("My allotment plot is {value}, right by the gate.",
     "Which allotment plot does {name} have?"),
    ("The vet registered our cat under {value}.",
     "Under which number did the vet register {name}'s cat?"),
    ("My locker code at the swimming pool is {value}.",
     "What is {name}'s locker code at the swimming pool?"),
    ("The reference for my passport renewal is {value}.",
     "What is the reference of {name}'s passport renewal?"),
    ("Our wedding venue gave us the booking {value}.",
     "What booking did the wedding venue give {name}?"),
    ("My choir folder is number {value}.",
     "What number is {name}'s choir folder?"),
)


class PoolEmbedder:
    """An :class:`Embedder` that answers from a pool of vectors by text and asks the model
    for the rest. It keeps the model's name: pooled vectors stand in for the model's own."""

    def __init__(self, model: Embedder, pool: dict[str, np.ndarray] | None = None) -> None:
        self.model = model
        self.pool: dict[str, np.ndarray] = pool or {}
        self.computed = 0  # texts the model embedded

    @classmethod
    def from_conversations(cls, model: Embedder,
                           conversations: Sequence[ConversationRecord]) -> PoolEmbedder:
        lines = list(dict.fromkeys(turn_line(t.speaker, t.text, t.image_caption)
                                   for c in conversations for s in c.sessions for t in s.turns))
        vectors = model.embed(lines)
        return cls(model, dict(zip(lines, vectors, strict=True)))

    @property
    def name(self) -> str:
        return self.model.name

    @property
    def dimensions(self) -> int:
        return self.model.dimensions

    def __len__(self) -> int:
        return len(self.pool)

    def alias(self, text: str, source: str) -> None:
        """``text`` gets the vector of ``source`` (which is in the pool)."""
        self.pool[text] = self.pool[source]

    def embed(self, texts: Sequence[str]) -> Vectors:
        out = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        missing = [i for i, text in enumerate(texts) if text not in self.pool]
        if missing:
            self.computed += len(missing)
            for i, vector in zip(missing, self.model.embed([texts[i] for i in missing]),
                                 strict=True):
                out[i] = vector
        for i, text in enumerate(texts):
            if text in self.pool:
                out[i] = self.pool[text]
        return out


@dataclass(frozen=True)
class PlantedFact:
    space: str
    conversation: str
    source_id: str  # of the planted turn
    question: str
    value: str


@dataclass
class Plan:
    """How many turns each space should hold, as shares of the total or fixed counts."""

    share: dict[str, float]  # space -> share of what is added beyond the fixed spaces
    fixed: dict[str, int]  # space -> turns it holds whatever the size
    probed: dict[str, str]  # role ("largest", "small") -> space
    stored: dict[str, int] = field(default_factory=dict)


class Synthesizer:
    def __init__(self, source: Sequence[ConversationRecord], pool: PoolEmbedder,
                 seed: int = 0) -> None:
        self.source = [c for c in source if c.n_turns]
        self.pool = pool
        self.rng = random.Random(seed)
        self.made = 0
        self.facts: dict[str, list[PlantedFact]] = {}

    def plan(self, layout: str, spaces: int) -> Plan:
        """``one``: every turn in one space. ``many``: ``spaces`` spaces, the largest with
        10% of the turns, a small one fixed at 300 turns, the rest by random weights."""
        if layout == "one":
            return Plan({"scale-one": 1.0}, {}, {"largest": "scale-one"})
        rest = [f"scale-t{n:04d}" for n in range(2, spaces)]
        weights = [self.rng.lognormvariate(0, 1) for _ in rest]
        total = sum(weights)
        share = {"scale-t0000": 0.10, **{s: 0.90 * w / total
                                         for s, w in zip(rest, weights, strict=True)}}
        return Plan(share, {"scale-t0001": 300},
                    {"largest": "scale-t0000", "small": "scale-t0001"})

    def grow(self, plan: Plan, turns: int) -> dict[str, list[ConversationRecord]]:
        """Conversations that add about ``turns`` turns over the plan's spaces."""
        targets = {s: n - plan.stored.get(s, 0) for s, n in plan.fixed.items()}
        added = turns - sum(max(0, n) for n in targets.values())
        targets.update({s: round(added * share) for s, share in plan.share.items()})
        out: dict[str, list[ConversationRecord]] = {}
        for space, want in targets.items():
            made: list[ConversationRecord] = []
            while want > 0:
                conv = self.conversation(want)
                made.append(conv)
                want -= conv.n_turns
                plan.stored[space] = plan.stored.get(space, 0) + conv.n_turns
            if made:
                out[space] = made
        return out

    def conversation(self, at_most: int) -> ConversationRecord:
        """A run of sessions of a real conversation, of at most ``at_most`` turns (at least
        one), with new names and dates."""
        real = self.rng.choice(self.source)
        first = self.rng.randrange(len(real.sessions))
        names = dict(zip(real.speakers, self.rng.sample(NAMES, len(real.speakers)),
                         strict=False))
        pattern = re.compile(r"\b(" + "|".join(map(re.escape, names)) + r")\b")
        shift = timedelta(days=self.rng.randint(-3000, 3000))
        sessions: list[SessionRecord] = []
        left = at_most
        for session in real.sessions[first:]:
            if left <= 0:
                break
            turns = []
            for turn in session.turns[:left]:
                text = pattern.sub(lambda m: names[m.group(1)], turn.text)
                speaker = names.get(turn.speaker, turn.speaker)
                self.pool.alias(turn_line(speaker, text, turn.image_caption),
                                turn_line(turn.speaker, turn.text, turn.image_caption))
                turns.append(turn.model_copy(update={"speaker": speaker, "text": text}))
            left -= len(turns)
            started = session.started_at + shift if session.started_at else None
            sessions.append(session.model_copy(update={
                "turns": tuple(turns), "index": len(sessions), "started_at": started,
                "date_text": started.isoformat() if started else None}))
        self.made += 1
        return ConversationRecord(key=f"syn-{self.made}", sessions=tuple(sessions),
                                  source_format="synthetic", source_file="(synthetic)")

    def plant(self, batches: dict[str, list[ConversationRecord]], spaces: dict[str, str],
              n: int) -> None:
        """Add ``n`` facts to each of ``spaces`` (at most one per template), each at the end
        of a random session of a random conversation of the space's batch."""
        for space in spaces.values():
            records = batches[space]
            for k, (said, asked) in enumerate(self.rng.sample(FACTS, min(n, len(FACTS)))):
                i = self.rng.randrange(len(records))
                conv = records[i]
                j = self.rng.randrange(len(conv.sessions))
                session = conv.sessions[j]
                speaker = self.rng.choice(conv.speakers)
                value = f"{self.rng.choice('BCDFGHKMPRTVWXZ')}-{self.rng.randint(1000, 9999)}"
                turn = TurnRecord(order=len(session.turns), speaker=speaker,
                                  text=said.format(value=value), source_id=f"fact-{k}")
                sessions = list(conv.sessions)
                sessions[j] = session.model_copy(update={"turns": (*session.turns, turn)})
                records[i] = conv.model_copy(update={"sessions": tuple(sessions)})
                self.facts.setdefault(space, []).append(PlantedFact(
                    space, conv.key, turn.source_id, asked.format(name=speaker), value))
