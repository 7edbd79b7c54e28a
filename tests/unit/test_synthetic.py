"""Synthetic conversations for the scale benchmark: sizes as asked, new names and dates,
vectors from the pool, planted facts findable by id and asked by speaker."""

from __future__ import annotations

import re

import numpy as np

from graphmem.eval.synthetic import FACTS, PoolEmbedder, Synthesizer
from graphmem.ingest.inputs.fields import Where, check_record
from graphmem.ingest.inputs.loaders import parse_file
from graphmem.providers.embedder import HashEmbedder
from graphmem.text import turn_line

from helpers import SAMPLE


class Counting(HashEmbedder):
    def __init__(self) -> None:
        super().__init__()
        self.texts: list[str] = []

    def embed(self, texts: object) -> np.ndarray:  # type: ignore[override]
        self.texts.extend(texts)  # type: ignore[arg-type]
        return super().embed(texts)  # type: ignore[arg-type]


def synthesizer(model: HashEmbedder | None = None) -> tuple[Synthesizer, PoolEmbedder]:
    source = parse_file(SAMPLE).conversations
    pool = PoolEmbedder.from_conversations(model or HashEmbedder(), source)
    return Synthesizer(source, pool, seed=3), pool


def test_grow_reaches_the_plan_and_renames_speakers_in_text_and_field() -> None:
    synth, _ = synthesizer()
    plan = synth.plan("many", 20)
    batches = synth.grow(plan, 1000)
    made = sum(c.n_turns for records in batches.values() for c in records)
    assert abs(made - 1000) <= 20  # rounding of the shares, never a whole session off
    assert plan.stored["scale-t0001"] == 300  # the small tenant is fixed
    assert synth.grow(plan, 500).get("scale-t0001") is None  # and does not grow
    assert plan.stored["scale-t0000"] >= 0.1 * (1000 - 300) - 1
    texts = [t for records in batches.values() for c in records
             for s in c.sessions for t in s.turns]
    assert not {t.speaker for t in texts} & {"Maya", "Jonas"}
    assert not any(re.search(r"\b(Maya|Jonas)\b", t.text) for t in texts)
    for conv in (c for records in batches.values() for c in records):
        check_record(conv, Where("(synthetic)", conv.key, 50_000, "error", []))  # valid input


def test_synthetic_lines_take_their_source_vectors_without_the_model() -> None:
    model = Counting()
    synth, pool = synthesizer(model)
    before = len(model.texts)
    conv = synth.conversation(40)
    lines = [turn_line(t.speaker, t.text, t.image_caption) for s in conv.sessions
             for t in s.turns]
    vectors = pool.embed(lines)
    assert len(model.texts) == before and pool.computed == 0
    source = parse_file(SAMPLE).conversations[0]
    originals = {turn_line(t.speaker, t.text, t.image_caption)
                 for s in source.sessions for t in s.turns}
    assert all(any(np.array_equal(v, pool.pool[o]) for o in originals) for v in vectors)
    pool.embed(["Something nobody said before."])
    assert pool.computed == 1 and model.texts[-1] == "Something nobody said before."


def test_planted_facts_are_new_turns_asked_by_speaker() -> None:
    synth, _ = synthesizer()
    plan = synth.plan("one", 0)
    batches = synth.grow(plan, 200)
    synth.plant(batches, plan.probed, 5)
    facts = synth.facts["scale-one"]
    assert len(facts) == 5 and len({f.value for f in facts}) == 5
    asked = {f.question for f in facts}
    assert len(asked) == 5
    for fact in facts:
        conv = next(c for c in batches["scale-one"] if c.key == fact.conversation)
        turn = next(t for s in conv.sessions for t in s.turns if t.source_id == fact.source_id)
        assert fact.value in turn.text and turn.speaker in fact.question
        assert any(fact.question == q.format(name=turn.speaker) for _, q in FACTS)
