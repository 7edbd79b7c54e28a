"""ES-Mem segmentation: the mutual-information measure, candidates, the LLM-free boundary model,
the intent labels' p_eb, and both stages with a scripted LLM (including its failures)."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from pydantic import ValidationError

from graphmem.config import Settings
from graphmem.eval.segmenters import dialogue_lines
from graphmem.ingest.layers.events.boundary_model import FEATURES, BoundaryModel, load_model
from graphmem.ingest.layers.events.layer import name_tokens, summarise
from graphmem.ingest.layers.events.segmentation import (
    SegmentationConfig,
    candidate_cuts,
    pearson_mi,
    segment,
)
from graphmem.ingest.layers.events.topics import TurnTopic, rule_topics, topic_texts
from graphmem.prompts.intent import IntentOutput
from graphmem.providers.embedder import HashEmbedder, SentenceTransformerEmbedder
from graphmem.providers.llm import OpenAICompatibleLLM
from graphmem.training.logistic import fit_logistic
from graphmem.training.segmenter import calibrate

from helpers import ScriptedServer

POTTERY = [
    "I signed up for a pottery class at the community centre.",
    "Nice, which evening is the pottery class?",
    "Tuesdays. I am glazing a set of clay mugs for my sister.",
    "Glazing clay mugs sounds hard, do they go in a kiln?",
]
RUNNING = [
    "By the way, how is your marathon training going?",
    "I ran sixteen kilometres on Sunday for the Lisbon marathon.",
    "Running that far must hurt your knees and legs.",
    "My knee hurts after long runs, the physio says rest.",
]


class Counting(HashEmbedder):
    """Hashed words, recording every batch it is asked for."""

    def __init__(self) -> None:
        super().__init__()
        self.texts: list[list[str]] = []

    def embed(self, texts: Any) -> Any:
        self.texts.append(list(texts))
        return super().embed(texts)


@pytest.fixture(scope="module")
def embedder() -> SentenceTransformerEmbedder:
    return SentenceTransformerEmbedder.from_settings(Settings())


def test_mutual_information_follows_the_correlation_of_dimensions() -> None:
    rng = np.random.default_rng(0)
    a = rng.normal(size=64)
    near = a + 0.1 * rng.normal(size=64)
    far = rng.normal(size=64)
    mi = pearson_mi(np.vstack([a, near, far]).astype(np.float32))
    assert mi.shape == (2,)
    rho = np.corrcoef(a, near)[0, 1]
    assert mi[0] == pytest.approx(-0.5 * math.log(1 - rho**2), rel=1e-4)
    assert mi[0] > 1.0 > mi[1] >= 0.0
    assert pearson_mi(np.zeros((1, 8), dtype=np.float32)).shape == (0,)


def test_candidates_are_cuts_in_the_lowest_quantile() -> None:
    mi = np.array([2.0, 0.1, 1.5, 0.2, 3.0, 2.5])
    assert candidate_cuts(mi, 0.35) == [2, 4]  # boundaries name the turn after the cut
    assert candidate_cuts(mi, 1.0) == [1, 2, 3, 4, 5, 6]
    assert candidate_cuts(np.zeros(0), 0.35) == []


def test_rule_topics_and_what_stage_one_embeds() -> None:
    pair = ["I adopted a greyhound called Pepper last Saturday.", "Oh wow, yes!"]
    topics = rule_topics(pair)
    assert "greyhound" in topics[0].keywords and topics[1].keywords == ()
    assert topics[0].topic == "greyhound"
    texts = topic_texts(pair, topics)
    assert texts[0].endswith("I adopted a greyhound called Pepper last Saturday.")
    assert "before: " in texts[1] and "greyhound" in texts[1]  # a bare reply keeps the topic


def test_logistic_fit_separates_a_toy_problem() -> None:
    x = np.array([[1.0, v] for v in (-2, -1.5, -1, -0.5, 0.5, 1, 1.5, 2)])
    y = np.array([0, 0, 0, 0, 1, 1, 1, 1], dtype=float)
    w = fit_logistic(x, y, l2=0.1)
    model = BoundaryModel(tuple(w), 0.5)
    assert w[1] > 0
    assert [model.probability(row) >= 0.5 for row in x] == [bool(v) for v in y]


def test_shipped_boundary_model_matches_the_features() -> None:
    model = load_model()
    assert len(model.weights) == len(FEATURES) and 0 < model.threshold < 1
    assert model.trained_on == "tiage_train.jsonl"
    # a question before the cut makes the next turn an answer: less likely a boundary
    assert model.weights[FEATURES.index("question_before")] < 0
    assert model.weights[FEATURES.index("window_similarity")] < 0


def test_p_eb_averages_the_shift_probability_of_both_labels() -> None:
    out = IntentOutput.model_validate({"labels": [
        {"label": "Topic Shift", "confidence": 0.9},
        {"label": "direct_response", "confidence": 0.2}]})
    assert out.p_eb() == pytest.approx((0.9 + 0.8) / 2)
    out = IntentOutput.model_validate({"labels": [
        {"label": "detail_elaboration", "confidence": 0.7},
        {"label": "topic_introduction", "confidence": 0.1}]})
    assert out.p_eb() == pytest.approx((0.3 + 0.1) / 2)
    with pytest.raises(ValidationError):
        IntentOutput.model_validate({"labels": [{"label": "topic_shift", "confidence": 0.9},
                                                {"label": "topic_shift", "confidence": 0.1}]})
    with pytest.raises(ValidationError):
        IntentOutput.model_validate({"labels": [{"label": "chit_chat", "confidence": 0.9},
                                                {"label": "topic_shift", "confidence": 0.1}]})


def test_rules_segmentation_finds_the_change_of_subject(embedder: Any) -> None:
    # as the events layer runs it: both stages compare the turns by their own vectors
    texts = POTTERY + RUNNING
    turns = embedder.embed(dialogue_lines(texts))
    stage1 = segment(texts, embedder, SegmentationConfig(refine=False), turn_vectors=turns)
    assert stage1.boundaries == stage1.candidates and stage1.p_eb == {}
    both = segment(texts, embedder, turn_vectors=turns)
    assert 4 in both.boundaries
    assert set(both.boundaries) <= set(both.candidates)
    assert set(both.p_eb) == set(both.candidates)
    assert segment(texts, embedder, SegmentationConfig(tau_rules=1.0),
                   turn_vectors=turns).boundaries == []
    assert segment(texts, embedder, SegmentationConfig(tau_rules=0.0),
                   turn_vectors=turns).boundaries == both.candidates
    assert segment([], embedder).boundaries == []
    assert segment(["only one turn"], embedder).boundaries == []


def test_the_rules_embed_nothing_when_given_the_turn_vectors() -> None:
    texts = POTTERY + RUNNING
    counting = Counting()
    turns = HashEmbedder().embed(texts)
    given = segment(texts, counting, SegmentationConfig(q=1.0), turn_vectors=turns)
    assert counting.texts == []
    assert given.p_eb == segment(texts, HashEmbedder(), SegmentationConfig(q=1.0)).p_eb
    assert given.mutual_information == pearson_mi(turns).tolist()
    other = segment(texts, counting, SegmentationConfig(q=1.0), turn_vectors=turns[::-1].copy())
    assert other.p_eb != given.p_eb  # the similarities come from the vectors given
    assert counting.texts == []
    # the earlier Stage 1, kept for comparison, embeds one topic line per turn
    topics = segment(texts, counting, SegmentationConfig(q=1.0, stage_one="topics"),
                     turn_vectors=turns)
    assert counting.texts == [topic_texts(texts, rule_topics(texts))]
    assert topics.mutual_information != given.mutual_information


def test_dialogues_without_speakers_are_embedded_as_two_people_taking_turns() -> None:
    assert dialogue_lines(["hi", "hello", "how are you?"]) == \
        ["A: hi", "B: hello", "A: how are you?"]


def test_event_summary_lists_topics_then_frequent_keywords() -> None:
    topics, words, text = summarise([TurnTopic("pottery class", ("pottery", "class")),
                                     TurnTopic("pottery class", ("mug", "pottery")),
                                     TurnTopic("", ())])
    assert topics == ["pottery class"] and words[0] == "pottery"
    assert text == "pottery class. Keywords: pottery, class, mug"
    # noun phrases where the rules found them; the speakers' names say nothing about an event
    topics, words, _ = summarise([TurnTopic("maya", ("maya", "kiln"), ("maya", "the kiln")),
                                  TurnTopic("glaze", ("glaze",), ("glaze", "blue mugs"))],
                                 name_tokens(["Maya Lopez", "Jonas"]))
    assert topics == ["glaze"] and words == ["the kiln", "glaze", "blue mugs"]


@pytest.fixture()
def server() -> Iterator[ScriptedServer]:
    srv = ScriptedServer()
    yield srv
    srv.httpd.shutdown()


def _scripted(body: dict[str, Any]) -> tuple[str, str]:
    system = body["messages"][0]["content"]
    user = body["messages"][1]["content"]
    if "label the subject" in system:
        current = user.split("Message to label:")[1]
        if "sixteen" in current:
            return "{not json", "stop"  # this turn falls back to its rule topic
        subject = "running" if re.search(r"marathon|ran|running|knee", current) else "pottery"
        return json.dumps({"topic": subject, "keywords": [subject, "talk"]}), "stop"
    after = user.split("AFTER the cut:")[1]
    if "marathon" in after:
        labels = [{"label": "topic_shift", "confidence": 0.9},
                  {"label": "direct_response", "confidence": 0.1}]
    elif "knee" in after:
        return "", "length"  # a reply cut off at the token limit: decided by the rules
    else:
        labels = [{"label": "detail_elaboration", "confidence": 0.8},
                  {"label": "topic_shift", "confidence": 0.1}]
    return json.dumps({"labels": labels}), "stop"


def test_llm_segmentation_with_recorded_fallbacks(embedder: Any, server: ScriptedServer,
                                                  tmp_path: Path) -> None:
    server.responder = _scripted
    settings = Settings(home=tmp_path, llm_base_url=server.url, llm_model="scripted",
                        llm_max_attempts=1)
    llm = OpenAICompatibleLLM(settings)
    texts = POTTERY + RUNNING
    result = segment(texts, embedder, SegmentationConfig(q=1.0), llm)  # every cut a candidate
    assert result.topics[0].topic == "pottery" and result.topics[4].topic == "running"
    assert result.topics[5].topic != "running"  # the unparseable turn kept its rule topic
    assert result.p_eb[4] == pytest.approx(0.9)
    assert result.p_eb[1] == pytest.approx(0.15)
    assert 4 in result.boundaries and 1 not in result.boundaries
    # cuts 6 and 7 see the knee turn after them without the marathon one: cut-off replies
    assert result.fallbacks == 3
    assert [n.split(":")[0] for n in result.notes] == ["turn 5", "cut 6", "cut 7"]
    knee_cuts = [6, 7]
    usage = llm.usage()
    assert usage["turn_topic"].calls >= len(texts) and usage["intent"].failures == len(knee_cuts)


def test_calibration_fits_weights_and_a_threshold(embedder: Any, tmp_path: Path) -> None:
    dialogues = []
    for i in range(6):
        first, second = (POTTERY, RUNNING) if i % 2 else (RUNNING, POTTERY)
        dialogues.append({"dial_id": str(i), "utterances": first + second,
                          "boundary_starts": [4]})
    data = tmp_path / "train.jsonl"
    data.write_text("\n".join(json.dumps(d) for d in dialogues))
    model, score = calibrate(data, embedder, SegmentationConfig(q=0.5), progress=False)
    assert len(model.weights) == len(FEATURES) and model.trained_on == "train.jsonl"
    assert score > 0.5 and 0 < model.threshold < 1
    with pytest.raises(ValueError, match="both kinds"):
        data.write_text(json.dumps({"dial_id": "x", "utterances": POTTERY,
                                    "boundary_starts": []}))
        calibrate(data, embedder, progress=False)
