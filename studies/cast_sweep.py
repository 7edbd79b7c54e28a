"""CAST scene parameters on a LoCoMo split, in memory (no Neo4j): which time window, topic
threshold, view window and extractive summary make scenes that find the evidence.

    python studies/cast_sweep.py [--data locomo_dev.json] [--out cast_sweep.json]

A setting is scored by its episodic retrieval alone: for each question the scenes whose
summary embedding is nearest the question, filtered by the question's persons, dates and
places as `cast` filters them, rendered as their turns (scene by scene, in order) and packed
into 1,000 tokens; the score is evidence recall, by the metric of every strategy. Settings are
chosen on the first three conversations of the file and the choice is validated on the other
two (held out), so the defaults are not fitted to the conversations they are reported on.
The sweep is staged: time window x topic threshold first, then the view window, then the
summary.
"""

from __future__ import annotations

import json
import time
from dataclasses import replace
from pathlib import Path
from typing import Any, Literal

import numpy as np
from common import LOCOMO, make_parser

from graphmem.config import Settings
from graphmem.eval.datasets import Question, locomo_questions
from graphmem.eval.metrics import evidence_recall
from graphmem.ingest.inputs.loaders import parse_file
from graphmem.ingest.layers.scenes.grouping import (
    Scene,
    SceneConfig,
    aggregate,
    summary,
    view_vectors,
)
from graphmem.ingest.layers.scenes.views import build_views, turn_facts
from graphmem.models import ConversationRecord, Hit
from graphmem.providers.embedder import SentenceTransformerEmbedder
from graphmem.retrieve import cues
from graphmem.text import Cast, display_name, render_turn, turn_line

BUDGET = 1000
K_SCENES = 8


class Conversation:
    def __init__(self, conv: ConversationRecord, embedder: SentenceTransformerEmbedder,
                 questions: list[Question]) -> None:
        self.conv, self.embedder, self.questions = conv, embedder, questions
        turns = [t for s in conv.sessions for t in s.turns]
        vectors = embedder.embed([turn_line(display_name(t.speaker), t.text, t.image_caption)
                                  for t in turns])
        self.turn_vectors = {t.source_id: v for t, v in zip(turns, vectors, strict=True)}
        self.facts = turn_facts(conv)
        self.asked = embedder.embed([q.question for q in questions])

    def recall(self, config: SceneConfig) -> list[float]:
        cast = Cast()
        views = build_views(self.conv, self.facts, cast, config.window)
        scenes = aggregate(views, view_vectors(views, self.turn_vectors), config)
        summaries = self.embedder.embed([summary(s, cast.names, config) for s in scenes])
        scores = self.asked @ summaries.T
        out = []
        for question, row in zip(self.questions, scores, strict=True):
            ranked = [scenes[i] for i in np.argsort(-row)]
            kept = cues.apply(ranked, cues.question_cues(question.question, cast),
                              participants=lambda s: s.roles(),
                              span=lambda s: (s.started_at, s.ended_at),
                              place=lambda s: s.place)[:K_SCENES]
            out.append(evidence_recall(_hits(kept), BUDGET, question.evidence))
        return out


def _hits(scenes: list[Scene]) -> list[Hit]:
    hits, seen = [], set()
    for scene in scenes:
        for turn in scene.turns:
            if turn.source_id in seen:
                continue
            seen.add(turn.source_id)
            hits.append(Hit(id=turn.source_id, kind="turn", score=0.0,
                            text=render_turn(turn.speaker, turn.text, None, turn.image_caption),
                            source_turn_ids=[turn.source_id], source_ids=[turn.source_id]))
    return hits


def score(convs: list[Conversation], config: SceneConfig) -> float:
    values = [v for c in convs for v in c.recall(config)]
    return 100 * sum(values) / len(values)


def main() -> None:
    parser = make_parser(__doc__)
    parser.add_argument("--data", type=Path, default=LOCOMO)
    parser.add_argument("--out", type=Path, default=Path("cast_sweep.json"))
    args = parser.parse_args()
    embedder = SentenceTransformerEmbedder.from_settings(Settings())
    records = parse_file(args.data).conversations
    questions = locomo_questions(args.data)
    convs = [Conversation(r, embedder, [q for q in questions if q.conversation == r.key])
             for r in records]
    fit, held = convs[:3], convs[3:]
    rows: list[dict[str, Any]] = []

    def trial(stage: str, config: SceneConfig) -> float:
        started = time.perf_counter()
        value = score(fit, config)
        rows.append({"stage": stage, **vars(config), "fit_recall": round(value, 1),
                     "seconds": round(time.perf_counter() - started, 1)})
        print(rows[-1], flush=True)
        return value

    best = SceneConfig()
    grid = [replace(best, time_days=d, topic_threshold=t)
            for d in (0.0, 7.0) for t in (0.5, 0.7, 0.8, 0.9)]
    best = max(grid, key=lambda c: trial("time x topic", c))
    best = max([replace(best, window=w) for w in (0, 1, 2)],
               key=lambda c: trial("window", c))
    summaries: list[tuple[Literal["central", "first", "all"], int]] = [
        ("central", 1), ("central", 3), ("first", 3), ("all", 3)]
    best = max([replace(best, summary=s, summary_turns=n) for s, n in summaries],
               key=lambda c: trial("summary", c))
    baseline = SceneConfig()
    result = {"chosen": vars(best), "trials": rows, "k_scenes": K_SCENES, "budget": BUDGET,
              "fit": [c.conv.key for c in fit], "held_out": [c.conv.key for c in held],
              "held_out_recall": {"chosen": round(score(held, best), 1),
                                  "initial": round(score(held, baseline), 1)}}
    args.out.write_text(json.dumps(result, indent=1, default=str))
    print(json.dumps({k: result[k] for k in ("chosen", "held_out_recall")}, default=str))


if __name__ == "__main__":
    main()
