"""Questions about two or more people or things (split into one question per part, each part's
turns among the fused strategy's candidates) and questions asking for every item of a kind
(the kind read from the question, each turn's closeness to it a feature)."""

from __future__ import annotations

from datetime import datetime
from types import SimpleNamespace
from typing import Any

import pytest

from graphmem.providers.nlp import parse
from graphmem.retrieve.base import Query, SpaceState
from graphmem.retrieve.fused import candidates, pipeline
from graphmem.retrieve.fused.candidates import gather
from graphmem.retrieve.fused.features import FEATURES, analyse, candidate_rows, matrix
from graphmem.retrieve.fused.kinds import question_kind
from graphmem.retrieve.fused.parts import question_parts
from graphmem.retrieve.fused.sources import Pools
from graphmem.retrieve.fused.space_index import SpaceTurns, TurnRow
from graphmem.retrieve.fused.space_vectors import DenseUnits, SpaceVectors


@pytest.mark.parametrize(("question", "parts"), [
    ("What movies have both Joanna and Nate seen?",
     ("What movies have Joanna seen?", "What movies have Nate seen?")),
    ("Did Jon and Gina both participate in dance competitions?",
     ("Did Jon participate in dance competitions?", "Did Gina participate in dance competitions?")),
    ("What kind of deals did John sign with Nike and Gatorade?",
     ("What kind of deals did John sign with Nike?",
      "What kind of deals did John sign with Gatorade?")),
    ("What instruments do Tim or John play?",
     ("What instruments do Tim play?", "What instruments do John play?")),
    ("Which countries have Anna, Ben and Carl lived in?",
     ("Which countries have Anna lived in?", "Which countries have Ben lived in?",
      "Which countries have Carl lived in?")),
])
def test_a_question_about_several_names_is_asked_of_each(question: str,
                                                         parts: tuple[str, ...]) -> None:
    assert question_parts(parse([question])[0]) == parts


@pytest.mark.parametrize("question", [
    "What did Caroline and her family do while camping?",  # one group doing one thing
    "How does John improve his strength and flexibility?",  # nouns, nobody asked "both"
    "Where did Maria go last summer?",  # nothing coordinated
])
def test_a_question_about_one_thing_stays_whole(question: str) -> None:
    assert question_parts(parse([question])[0]) == ()


def test_each_part_brings_its_own_turns_among_the_candidates() -> None:
    said = [("John", "Nike is my sponsor now! Nike, can you believe it? Nike!"),
            ("Tim", "Congrats!"),
            ("John", "Gatorade wants to talk to me too, about a drinks thing next season"),
            ("Tim", "I fed the turtles this morning")]
    rows = [TurnRow(f"t{i}", who, text, None, f"D1:{i}", i, None, "s1", 0,
                    datetime(2024, 3, 1), None) for i, (who, text) in enumerate(said)]
    table = SpaceTurns(rows)
    state = SpaceState("space", len(rows), len(rows), 1, {})
    ctx = SimpleNamespace(query=Query("What kind of deals did John sign with Nike and Gatorade?",
                                      embedder=None),  # type: ignore[arg-type]
                          embedder=None, store=None, caches=None)
    pools = Pools(turns=1)
    parts, _ = candidates.asked_of(ctx.query.doc)
    whole = gather(ctx, state, table, pools, ("bm25",))  # type: ignore[arg-type]
    split = gather(ctx, state, table, pools, ("bm25",), parts)  # type: ignore[arg-type]
    assert whole.rows() == {0}  # the whole question's best turn: Nike's
    assert split.rows() == {0, 2}  # Gatorade's part brings its own
    assert split.ranks["bm25"][2][0] == 0  # the best of its part's ranking


@pytest.mark.parametrize(("question", "kind"), [
    ("Which countries has Maria been to?", "countries"),
    ("What European countries has Maria been to?", "European countries"),
    ("What types of yoga has Maria practiced?", "yoga"),
    ("What board games has Nate played?", "board games"),
    ("What instruments do both of them play?", "instruments"),
    ("List all the teachers they mentioned.", "teachers"),
    ("What did he bake this month?", None),  # a list, but of no kind named
    ("When did Kate move to Oslo?", None),  # no list
])
def test_a_list_question_names_the_kind_it_asks_for(question: str, kind: str | None) -> None:
    assert question_kind(parse([question])[0]) == kind


class Embedder:
    """Two directions: the word "instruments" and what is close to it, and the rest."""

    def embed(self, texts: list[str]) -> list[list[float]]:
        return [[1.0, 0.0] if "instrument" in t or "cello" in t else [0.0, 1.0] for t in texts]


def test_the_turns_closest_to_the_kind_join_the_candidates_with_their_closeness(
        monkeypatch: pytest.MonkeyPatch) -> None:
    said = ["I finally bought a cello", "The weather is nice", "Lunch was good",
            "Work was long today"]
    rows = [TurnRow(f"t{i}", "Tim", text, None, f"D1:{i}", i, None, "s1", 0,
                    datetime(2024, 3, 1), None) for i, text in enumerate(said)]
    table = SpaceTurns(rows)
    vectors = Embedder().embed(said)
    held = SpaceVectors({"vector": DenseUnits.build([r.id for r in rows], vectors,
                                                    [[r.id] for r in rows])})
    monkeypatch.setattr(candidates, "space_vectors", lambda *_: held)
    embedder = Embedder()
    query = Query("What instruments does Tim play?", embedder)  # type: ignore[arg-type]
    ctx: Any = SimpleNamespace(query=query, embedder=embedder, store=None, caches=None)
    state = SpaceState("space", len(rows), len(rows), 1, {})
    asked = pipeline.question(ctx, table)  # the question analysed once: its kind found
    assert asked.kind == "instruments" and asked.parts == ()
    signals = gather(ctx, state, table, Pools(turns=1, kind=1), ("vector",), kind=asked.kind)
    assert signals.kind[0] == (0, pytest.approx(1.0)) and signals.kind[1][1] == 0.0
    assert 0 in signals.ranks["kind"] and set(signals.ranks["kind"]) == {0}
    x = matrix(table, signals, analyse(ctx.query), candidate_rows(table, signals))
    assert x[0, FEATURES.index("kind:closeness")] == pytest.approx(1.0)
    assert x[0, FEATURES.index("kind:depth")] == pytest.approx(1.0)
    whole = gather(ctx, state, table, Pools(turns=1, kind=1), ("vector",))
    assert not whole.kind and "kind" not in whole.ranks


def test_the_question_its_parts_and_its_kind_are_embedded_in_one_batch() -> None:
    calls: list[list[str]] = []

    class Counting(Embedder):
        def embed(self, texts: list[str]) -> list[list[float]]:
            calls.append(list(texts))
            return super().embed(texts)

    query = Query("What instruments do Tim or John play?", Counting())  # type: ignore[arg-type]
    ctx: Any = SimpleNamespace(query=query)
    asked = pipeline.question(ctx, SpaceTurns([]))
    extras = asked.extras
    assert extras == ("What instruments do Tim play?", "What instruments do John play?",
                      "instruments")
    assert calls == [[query.text, *extras]]  # one call for all four
    vectors = query.embed_with(extras)
    assert query.embedding == [1.0, 0.0] and vectors[2] == [1.0, 0.0]
    assert query.embed_with(extras) == vectors and len(calls) == 1  # kept for the question


def test_a_very_long_question_is_analysed_by_its_beginning() -> None:
    from graphmem.retrieve.base import ANALYSED_CHARS, analysed

    assert analysed("Where did Ana go?") == "Where did Ana go?"
    words = "where did Ana travel " * 5_000
    cut = analysed(words)
    assert words.startswith(cut) and ANALYSED_CHARS // 2 < len(cut) <= ANALYSED_CHARS
    assert not cut.endswith(" ") and words[len(cut)] == " "  # cut between words
    assert analysed("\U0001f600" * 50_000) == "\U0001f600" * ANALYSED_CHARS  # no space at all
