"""CAST's scenes and character profiles (seed 004), without an LLM.

Each character's stream is the views they take part in, in time order. A greedy pass keeps a
running scene (the mean of its views' times, their most frequent place, the mean of their
topic vectors); the next view joins it when at least two of three hold: its time is within
``time_days`` of the scene's, its place is the scene's (rapidfuzz ratio of at least
``PLACE_SCORE``; an unknown place matches nothing), its topic vector's cosine with the scene's
is at least ``topic_threshold``. Otherwise it opens a new scene.

Streams of different characters often make the same scene (two speakers share every view of
an exchange): scenes are kept once per span of views. Every participant of a scene has a
role there: main when they speak one of its turns, supporting when they are only mentioned.

The LLM-free summary of a scene is extractive: a header (day, place, who) and the scene's
first ``summary_turns`` turns (``summary="first"``, measured best; ``"central"`` takes the
turns nearest its topic centroid, in time order, ``"all"`` every turn). A profile lists a
character's scenes in time order with their role and the scene's most central turn.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

import numpy as np
from pydantic import Field

from graphmem.ingest.layer import LayerOptions
from graphmem.ingest.layers.scenes.views import View
from graphmem.models import TurnRecord
from graphmem.text import character_key, display_name, format_date, place_key, turn_line

PLACE_SCORE = 85.0
SummaryKind = Literal["central", "first", "all"]


class SceneOptions(LayerOptions):
    """The scenes layer's options, GRAPHMEM_SCENES_* (defaults chosen on LoCoMo dev:
    studies/cast_sweep.py, docs/results-cast.md)."""

    window: int = Field(default=1, ge=0, le=10,
                        description="CAST: turns either side of a view's central turn")
    time_days: float = Field(default=0.0, ge=0, description="CAST: days within which a view "
                             "is close in time to a scene")
    topic_threshold: float = Field(default=0.9, ge=-1, le=1, description="CAST: cosine at "
                                   "which a view's topic is close to a scene's")
    summary: SummaryKind = Field(default="first", description="CAST, without an LLM: which "
                                 "turns summarise a scene")
    summary_turns: int = Field(default=3, ge=1,
                               description="CAST: turns in an extractive summary")


@dataclass(frozen=True)
class SceneConfig:
    # defaults chosen on LoCoMo dev (studies/cast_sweep.py, docs/results-cast.md)
    window: int = 1  # w: turns either side of a view's central turn
    time_days: float = 0.0  # a view within this many days of the scene's time is "close"
    topic_threshold: float = 0.9  # cosine of a view's topic to the scene's
    summary: SummaryKind = "first"
    summary_turns: int = 3

    @classmethod
    def of(cls, options: SceneOptions) -> SceneConfig:
        return cls(options.window, options.time_days, options.topic_threshold,
                   options.summary, options.summary_turns)


@dataclass
class Scene:
    views: list[View]
    vectors: list[np.ndarray] = field(default_factory=list)
    owners: list[str] = field(default_factory=list)  # the streams that made it

    @property
    def key(self) -> str:
        """The first view's turn and a digest of all its views: stable while its views stay,
        so appending a session changes the key of the scenes it extends only."""
        span = "\n".join(v.turn.source_id for v in self.views)
        return f"{self.views[0].turn.source_id}~{hashlib.sha1(span.encode()).hexdigest()[:10]}"

    @property
    def turns(self) -> list[TurnRecord]:
        """The views' windows, each turn once, in conversation order."""
        seen: dict[str, tuple[int, int, TurnRecord]] = {}
        for view in self.views:
            for turn in view.window:
                seen.setdefault(turn.source_id, (view.session.index, turn.order, turn))
        return [t for _, _, t in sorted(seen.values(), key=lambda x: (x[0], x[1]))]

    @property
    def started_at(self) -> datetime | None:
        return min((v.time for v in self.views if v.time), default=None)

    @property
    def ended_at(self) -> datetime | None:
        return max((v.time for v in self.views if v.time), default=None)

    @property
    def place(self) -> str | None:
        places = Counter(v.place for v in self.views if v.place)
        return places.most_common(1)[0][0] if places else None

    def roles(self) -> dict[str, str]:
        """Each participant's role: main if they speak a turn of the scene, else supporting."""
        speaking = {character_key(display_name(t.speaker)) for t in self.turns}
        everyone = dict.fromkeys(k for v in self.views for k in v.participants)
        return {k: "main" if k in speaking else "supporting" for k in everyone}

    def add(self, view: View, vector: np.ndarray) -> None:
        self.views.append(view)
        self.vectors.append(vector)

    def centroid(self) -> np.ndarray:
        return _unit(np.sum(self.vectors, axis=0))

    def central_turns(self) -> list[TurnRecord]:
        """The views' central turns, nearest the scene's topic first. Turns as near as the
        nearest within ``TIE`` count as tied and the earliest leads: a scene of two views has
        its centroid exactly between them, and which one float rounding favours would
        otherwise depend on how the embeddings were batched (a live message or an ingest)."""
        scores = [float(v @ self.centroid()) for v in self.vectors]
        ranked = sorted(range(len(self.views)), key=lambda i: (-scores[i], i))
        if ranked:
            lead = min(i for i in ranked if scores[i] >= scores[ranked[0]] - TIE)
            ranked = [lead, *(i for i in ranked if i != lead)]
        return [self.views[i].turn for i in ranked]


TIE = 1e-5  # embeddings of one text batched differently differ by ~1e-7


def _unit(vector: np.ndarray) -> np.ndarray:
    norm = float(np.linalg.norm(vector))
    return vector / norm if norm else vector


def view_vectors(views: Sequence[View], turn_vectors: Mapping[str, np.ndarray]) -> list[np.ndarray]:
    """A view's topic vector: the mean of its window's turn embeddings, unit length (the turns
    layer embedded each turn already; a window is not embedded again)."""
    return [_unit(np.mean([turn_vectors[t.source_id] for t in v.window], axis=0)) for v in views]


def _close(scene: Scene, view: View, vector: np.ndarray, centroid: np.ndarray,
           config: SceneConfig) -> bool:
    votes = 0
    start, time = scene.started_at, view.time
    if start is not None and time is not None:
        times = [v.time.timestamp() for v in scene.views if v.time]
        mean = sum(times) / len(times)
        votes += abs(time.timestamp() - mean) <= config.time_days * 86_400
    place = scene.place
    if place and view.place:
        from rapidfuzz import fuzz

        votes += fuzz.ratio(place_key(place), place_key(view.place)) >= PLACE_SCORE
    votes += float(vector @ centroid) >= config.topic_threshold
    return votes >= 2


def aggregate(views: Sequence[View], vectors: Sequence[np.ndarray],
              config: SceneConfig) -> list[Scene]:
    """Scenes of every character stream, greedy in time order; a span of views that several
    streams form is one scene (its ``owners`` say whose streams)."""
    streams: dict[str, list[int]] = {}
    for view in views:
        for key in view.participants:
            streams.setdefault(key, []).append(view.index)
    by_span: dict[str, Scene] = {}
    for owner, members in streams.items():
        current: Scene | None = None
        total = np.zeros(0)
        for i in members:
            view, vector = views[i], vectors[i]
            if current is not None and _close(current, view, vector, _unit(total), config):
                current.add(view, vector)
                total = total + vector
                continue
            if current is not None:
                _keep(by_span, current, owner)
            current, total = Scene([view], [vector]), vector
        if current is not None:
            _keep(by_span, current, owner)
    return sorted(by_span.values(), key=lambda s: (s.views[0].index, s.views[-1].index))


def _keep(by_span: dict[str, Scene], scene: Scene, owner: str) -> None:
    span = ",".join(str(v.index) for v in scene.views)
    by_span.setdefault(span, scene).owners.append(owner)


def summary(scene: Scene, names: Mapping[str, str], config: SceneConfig) -> str:
    """The LLM-free summary: who, when and where, then the chosen turns."""
    if config.summary == "all":
        chosen = scene.turns
    elif config.summary == "first":
        chosen = [v.turn for v in scene.views[: config.summary_turns]]
    else:
        picked = {t.source_id for t in scene.central_turns()[: config.summary_turns]}
        chosen = [v.turn for v in scene.views if v.turn.source_id in picked]
    return f"{header(scene, names)}\n" + "\n".join(
        turn_line(display_name(t.speaker), t.text, t.image_caption) for t in chosen)


def header(scene: Scene, names: Mapping[str, str]) -> str:
    """``[8 May 2023] at Boston: Caroline, Melanie (main); Oscar (supporting)``."""
    roles = scene.roles()
    main = [names.get(k, k) for k, r in roles.items() if r == "main"]
    supporting = [names.get(k, k) for k, r in roles.items() if r == "supporting"]
    who = ", ".join(main) + " (main)" if main else ""
    if supporting:
        who += ("; " if who else "") + ", ".join(supporting) + " (supporting)"
    day = format_date(scene.started_at)
    where = f" at {scene.place}" if scene.place else ""
    return f"[{day}]{where}: {who}" if day else f"{where.strip()}: {who}".lstrip(": ")


def title(scene: Scene, words: int = 6) -> str:
    """A caption for Neo4j Browser: the day and the opening words of the scene."""
    said = scene.views[0].turn.text.split()
    opening = " ".join(said[:words]) + ("…" if len(said) > words else "")
    day = format_date(scene.started_at)
    return f"{day}: {opening}" if day else opening


def profile(name: str, entries: Sequence[tuple[Scene, str]]) -> str:
    """A character's profile: each scene in time order, with their role and the scene's most
    central turn."""
    lines = [f"{name}: main in {sum(r == 'main' for _, r in entries)} scenes, supporting in "
             f"{sum(r == 'supporting' for _, r in entries)}"]
    for scene, role in entries:
        turn = scene.central_turns()[0]
        day = format_date(scene.started_at)
        lines.append(f"[{day}] ({role}) {turn_line(display_name(turn.speaker), turn.text)}")
    return "\n".join(lines)
