"""CAST without Neo4j: views, characters and roles, the greedy scene aggregation, the
question's filters and the fusion rules."""

from __future__ import annotations

from datetime import datetime

import numpy as np

from graphmem.ingest.layers.scenes.grouping import SceneConfig, aggregate, header, summary, title
from graphmem.ingest.layers.scenes.views import build_views, turn_facts
from graphmem.models import ConversationRecord, SessionRecord, TurnRecord
from graphmem.retrieve.cast import Retrieved, promote, rank_fuse
from graphmem.retrieve.cues import Cues, apply, date_span, question_cues
from graphmem.text import Cast


def conversation(*sessions: tuple[str, list[tuple[str, str]]]) -> ConversationRecord:
    return ConversationRecord(key="c", source_format="json", source_file="-", sessions=tuple(
        SessionRecord(key=f"s{i}", index=i, started_at=datetime.fromisoformat(day),
                      turns=tuple(TurnRecord(order=j, speaker=who, text=text,
                                             source_id=f"s{i}:{j}")
                                  for j, (who, text) in enumerate(turns)))
        for i, (day, turns) in enumerate(sessions)))


TALK = conversation(
    ("2024-01-05", [("Ana", "Glad you asked! My grandmother Rosa came over from Lisbon."),
                    ("Ben", "I am glad she visited. What did Rosa cook?"),
                    ("Ana", "Rosa baked custard tarts all afternoon.")]),
    ("2024-06-20", [("Ben", "I played a chess tournament in Oslo."),
                    ("Ana", "Did you win any games?")]))


def test_a_person_mentioned_but_silent_is_supporting_and_capitalised_words_are_not_persons(
) -> None:
    cast = Cast()
    views = build_views(TALK, turn_facts(TALK), cast)
    assert set(cast.names) == {"ana", "ben", "rosa"}  # "Glad" is written "glad" elsewhere
    first = views[0]
    assert first.speakers == ("ana", "ben") and first.mentioned == ("rosa",)
    assert first.place == "Lisbon" and views[2].place == "Lisbon"  # carried within the session
    assert views[3].place == "Oslo" and views[3].mentioned == ()
    vectors = [np.eye(4)[0]] * 3 + [np.eye(4)[1]] * 2
    scenes = aggregate(views, vectors, SceneConfig(time_days=0, topic_threshold=0.5))
    roles = [s.roles() for s in scenes]
    assert {"ana": "main", "ben": "main", "rosa": "supporting"} in roles
    assert all(r.get("rosa") in {None, "supporting"} for r in roles)


def test_views_far_apart_in_time_and_topic_form_two_scenes() -> None:
    views = build_views(TALK, turn_facts(TALK), Cast())
    vectors = [np.eye(4)[0]] * 3 + [np.eye(4)[1]] * 2  # winter baking, summer chess
    scenes = aggregate(views, vectors, SceneConfig(time_days=0, topic_threshold=0.5))
    spans = {tuple(v.index for v in s.views) for s in scenes}
    assert (0, 1, 2) in spans and (3, 4) in spans
    assert not any(set(span) & {0, 1, 2} and set(span) & {3, 4} for span in spans)
    joined = aggregate(views, [np.eye(4)[0]] * 5, SceneConfig(time_days=400,
                                                             topic_threshold=0.5))
    assert {tuple(v.index for v in s.views) for s in joined} >= {(0, 1, 2, 3, 4)}
    winter = next(s for s in scenes if s.views[0].index == 0)
    assert header(winter, {"ana": "Ana", "ben": "Ben", "rosa": "Rosa"}) == (
        "[5 January 2024] at Lisbon: Ana, Ben (main); Rosa (supporting)")
    text = summary(winter, {}, SceneConfig(summary="first", summary_turns=2))
    assert text.splitlines()[1:] == ["Ana: Glad you asked! My grandmother Rosa came over from "
                                     "Lisbon.", "Ben: I am glad she visited. What did Rosa cook?"]
    assert title(winter) == "5 January 2024: Glad you asked! My grandmother Rosa…"


def test_same_span_from_two_streams_is_one_scene() -> None:
    views = build_views(TALK, turn_facts(TALK), Cast())
    scenes = aggregate(views, [np.eye(4)[0]] * 3 + [np.eye(4)[1]] * 2,
                       SceneConfig(time_days=0, topic_threshold=0.5))
    summer = [s for s in scenes if s.views[0].index == 3]
    assert len(summer) == 1 and sorted(summer[0].owners) == ["ana", "ben"]


def test_question_cues_and_filters() -> None:
    cast = Cast(["Ana", "Ben", "Rosa"])
    cues = question_cues("What did Rosa bake for Ana in January 2024 in Lisbon?", cast)
    assert set(cues.persons) == {"rosa", "ana"} and cues.places == ("Lisbon",)
    assert cues.spans == ((datetime(2024, 1, 1), datetime(2024, 2, 1)),)
    assert date_span("2023") == (datetime(2023, 1, 1), datetime(2024, 1, 1))
    assert date_span("7 May 2023") == (datetime(2023, 5, 7), datetime(2023, 5, 8))
    assert date_span("June") is None and date_span("last week") is None
    scenes = [("a", ("ana", "ben"), datetime(2024, 6, 1), None),
              ("b", ("ana", "rosa"), datetime(2024, 1, 5), "Lisbon"),
              ("c", ("rosa",), datetime(2023, 1, 5), None)]

    def kept(found: Cues) -> list[str]:
        return [s[0] for s in apply(scenes, found, participants=lambda s: s[1],
                                    span=lambda s: (s[2], s[2]), place=lambda s: s[3])]

    assert kept(cues) == ["b"]
    assert kept(Cues(persons=("rosa",))) == ["b", "c"]
    assert kept(Cues(persons=("rosa", "ben"))) == ["a", "b", "c"]  # nobody has both: any
    assert kept(Cues(places=("Paris",))) == ["a", "b", "c"]  # a filter that empties is dropped
    assert kept(Cues()) == ["a", "b", "c"]


def test_fusion_promotes_without_adding_and_ours_adds() -> None:
    scenes = [Retrieved("s", ("ana",), None, (None, None), ("t3", "t9"))]
    assert promote(["t1", "t2", "t3", "t4"], scenes) == ["t3", "t1", "t2", "t4"]
    assert promote(["t1", "t2"], scenes) == ["t1", "t2"]
    fused = rank_fuse(["t1", "t2", "t3"], scenes, 60)
    assert fused[0] == "t3" and "t9" in fused and set(fused) == {"t1", "t2", "t3", "t9"}


def test_the_llm_summarises_a_scene_and_a_bad_reply_leaves_the_extract() -> None:
    from typing import Any

    from graphmem.ingest.layer import LayerContext
    from graphmem.ingest.layers.scenes.layer import SceneLayer
    from graphmem.testing import ScriptedLLM

    views = build_views(TALK, turn_facts(TALK), Cast())
    config = SceneConfig(time_days=0, topic_threshold=0.5)
    scenes = aggregate(views, [np.eye(4)[0]] * 3 + [np.eye(4)[1]] * 2, config)[:2]
    llm = ScriptedLLM({"scene_summary": [{"summary": "Ana's grandmother Rosa baked tarts."},
                                         {"summary": "   "}]})
    nobody: Any = None
    layer = SceneLayer(LayerContext(store=nobody, embedder=nobody, llm=llm), config)
    notes: list[str] = []
    found = layer._summaries(scenes, {"ana": "Ana", "ben": "Ben", "rosa": "Rosa"}, notes)
    assert found[0].splitlines() == ["[5 January 2024] at Lisbon: Ana, Ben (main); Rosa "
                                     "(supporting)", "Ana's grandmother Rosa baked tarts."]
    assert found[1] == summary(scenes[1], {"ana": "Ana", "ben": "Ben", "rosa": "Rosa"}, config)
    assert len(notes) == 1 and llm.usage()["scene_summary"].fallbacks == 1
    prompt = llm.calls[0].messages[1]["content"]
    assert "Rosa baked custard tarts all afternoon." in prompt and "Scene: [5 January" in prompt


def test_the_central_turn_among_views_equally_near_within_rounding_is_the_earliest() -> None:
    from graphmem.ingest.layers.scenes.grouping import Scene

    views = build_views(TALK, turn_facts(TALK), Cast())[:3]

    def at(angle: float) -> np.ndarray:
        return np.array([np.cos(angle), np.sin(angle), 0.0])

    scene = Scene(list(views), [at(1.0), at(-1.0), at(0.0)])
    assert scene.central_turns()[0] is views[2].turn  # on the axis: a real lead is kept
    tilted = np.array([0.0, -2e-6, 1.0])  # pulls the centroid a hair toward the second
    scene = Scene(list(views), [at(0.3), at(-0.3), tilted / np.linalg.norm(tilted)])
    scores = [float(v @ scene.centroid()) for v in scene.vectors]
    assert scores[1] > scores[0]  # rounding alone would pick the second
    assert scene.central_turns()[0] is views[0].turn
    pulled = np.array([0.0, -0.1, 1.0])
    scene = Scene(list(views), [at(0.3), at(-0.3), pulled / np.linalg.norm(pulled)])
    assert scene.central_turns()[0] is views[1].turn  # a real difference still decides
