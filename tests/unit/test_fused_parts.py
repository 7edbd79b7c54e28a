"""The fused strategy's parts without a database: the space's own BM25, features, packing with
one date header per session, the ranker file, and the training folds and fit."""

from __future__ import annotations

import dataclasses
import json
from datetime import datetime
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from graphmem.errors import ConfigurationError
from graphmem.retrieve.base import SpaceState
from graphmem.retrieve.fused.candidates import Signals
from graphmem.retrieve.fused.features import (
    FAMILIES,
    FEATURES,
    SOURCES,
    Asked,
    candidate_rows,
    matrix,
)
from graphmem.retrieve.fused.pipeline import packing_inputs
from graphmem.retrieve.fused.ranker import SHIPPED, TreeRanker, from_json, load_ranker
from graphmem.retrieve.fused.space_index import SpaceTurns, TurnRow, _stem, _stem_word
from graphmem.retrieve.fused.space_vectors import DenseUnits
from graphmem.retrieve.fused.statements import Statement, statement_line
from graphmem.retrieve.fused.strategy import render
from graphmem.retrieve.packing import count_tokens, pack
from graphmem.retrieve.space_cache import SpaceCache, SpaceCaches
from graphmem.training.ranker import Sample, fit, folds_of, out_of_fold, recall, train

from helpers import select_lists


def table(*sessions: list[tuple[str, str]]) -> SpaceTurns:
    rows = []
    for s, turns in enumerate(sessions):
        for i, (speaker, text) in enumerate(turns):
            rows.append(TurnRow(f"t{s}-{i}", speaker, text, None, f"D{s}:{i}", i, 0.1 * i,
                                f"s{s}", s, datetime(2024, 3, 1 + s), None))
    return SpaceTurns(rows)


SPACE = table(
    [("Maya", "We adopted a greyhound called Pepper."), ("Jonas", "Where is she from?"),
     ("Maya", "A rescue in Bristol."), ("Jonas", "I run on Sundays.")],
    [("Jonas", "My knee hurts after the long run."), ("Maya", "Rest it for a week!")],
)


def test_a_fact_changed_later_is_read_after_its_new_value_and_marked() -> None:
    moved = table(
        [("Ann", "I live in Porto."), ("Bo", "Nice city."), ("Ann", "I cycle to work.")],
        [("Ann", "We moved to Lisbon last week."), ("Bo", "Congrats!")])
    moved.newer = {0: [3]}  # the episodes layer found row 0's fact superseded by row 3's
    chosen = [(r, 0.5, None) for r in (0, 2, 3, 4)]
    texts = [h.text for h in render(moved, chosen)]
    assert texts == ["[1 March 2024]\nAnn: I cycle to work.",
                     "[2 March 2024]\nAnn: We moved to Lisbon last week. "
                     "[last week: the week before 2 March 2024]",
                     "[1 March 2024] Ann: I live in Porto. (changed later)",
                     "Bo: Congrats!"]  # the header of the second day is not repeated
    # without the newer turn shown, the old one keeps its place, marked
    alone = render(moved, [(0, 0.5, None), (1, 0.4, None)])
    assert [h.text for h in alone] == ["[1 March 2024]\nAnn: I live in Porto. (changed later)",
                                       "Bo: Nice city."]
    # a chain of changes reads newest first, each after what changed it
    moved.newer = {0: [3], 3: [4]}
    order = [h.source_ids[0] for h in render(moved, [(r, 0.5, None) for r in (0, 3, 4)])]
    assert order == ["D1:1", "D1:0", "D0:0"]
    # the mark and the day it may carry are counted when packing
    costs, heads, _, _ = packing_inputs(moved, [0, 1])
    assert costs[0] == moved.rows[0].tokens + count_tokens(" (changed later)") + heads[0]
    assert costs[1] == moved.rows[1].tokens


def test_bm25_uses_the_spaces_own_statistics_and_stems() -> None:
    scores = SPACE.bm25("Which dogs did they adopt?")
    assert int(np.argmax(scores)) == 0 and scores[0] > 0  # "adopt" matches "adopted"
    assert np.count_nonzero(scores) == 1
    bigger = SpaceTurns([*SPACE.rows, *table([("Ana", "adopted adopted adopted")]).rows[:1]])
    # another document holding the term lowers its idf: scores are the table's own
    assert bigger.bm25("adopt")[0] < SPACE.bm25("adopt")[0]
    assert not SPACE.bm25("the of and").any()


def test_stems_are_porters_and_remembered_across_spaces() -> None:
    from nltk.stem.porter import PorterStemmer

    words = ["adopted", "running", "greyhounds", "generously", "adopted"]
    assert _stem(words) == [PorterStemmer().stem(w) for w in words]
    hits = _stem_word.cache_info().hits
    SpaceTurns(table([("Ana", "Running greyhounds adopted generously")]).rows).bm25("adopt")
    assert _stem_word.cache_info().hits >= hits + 4  # every word was stemmed before
    assert _stem_word.cache_info().maxsize is not None  # bounded


def test_neighbours_stay_in_their_session() -> None:
    assert SPACE.neighbour(0, -1) is None and SPACE.neighbour(0, 1) == 1
    assert SPACE.neighbour(3, 1) is None and SPACE.neighbour(4, -1) is None


def test_features_follow_sources_neighbours_persons_dates_and_type() -> None:
    signals = Signals(sources=("bm25", "vector"))
    signals.add("bm25", 2, 0, 8.0)
    signals.add("vector", 2, 3, 0.6)
    signals.add("vector", 2, 1, 0.7)  # a better rank for the same turn wins
    asked = Asked(persons=("maya",), spans=((datetime(2024, 3, 1), datetime(2024, 3, 2)),),
                  when=True, count=False)
    rows = candidate_rows(SPACE, signals)
    assert rows == [1, 2, 3]  # the reached turn and its neighbours in the session
    x = matrix(SPACE, signals, asked, rows)
    col = {n: i for i, n in enumerate(FEATURES)}
    reached, before = x[1], x[0]
    assert reached[col["bm25:rr"]] == 1.0 and reached[col["bm25:score"]] == 1.0
    assert reached[col["vector:rr"]] == pytest.approx(0.5)
    assert reached[col["sources"]] == 1.0 and before[col["sources"]] == 0.0
    assert before[col["next:depth"]] == 1.0 and before[col["prev:depth"]] == 0.0
    assert reached[col["prev:question"]] == 1.0 and before[col["self:question"]] == 1.0
    assert reached[col["speaker_named"]] == 1.0 and before[col["speaker_named"]] == 0.0
    assert all(x[:, col["date_match"]] == 1.0)  # session 0 lies on the day named
    assert x[2][col["when_x_time"]] == 0.0 and x[2][col["count_x_number"]] == 0.0
    assert reached[col["salience"]] == pytest.approx(0.2)
    assert set(FEATURES) == {c for cols in FAMILIES.values() for c in cols}
    assert {f"{s}:rr" for s in SOURCES} <= set(FEATURES)


def test_session_context_and_neighbours_two_away_stay_in_the_turns_session() -> None:
    signals = Signals(sources=("bm25", "vector"))
    signals.add("bm25", 0, 0, 8.0)  # turn 0 leads session 0; turn 2 is found far down
    signals.add("vector", 2, 100, 0.3)
    signals.add("vector", 5, 1, 0.6)  # session 1: its second turn only
    rows = candidate_rows(SPACE, signals)
    assert rows == [0, 1, 2, 3, 4, 5]
    x = matrix(SPACE, signals, Asked((), (), False, False), rows)
    col = {n: i for i, n in enumerate(FEATURES)}
    far = 1 - np.log1p(100) / np.log(401)  # below NEAR_TOP
    # the leader's best other is the far turn; every other turn of session 0 has the leader
    assert x[0, col["session:best"]] == pytest.approx(far)
    assert x[1, col["session:best"]] == x[2, col["session:best"]] == 1.0
    assert x[2, col["session:top3"]] == pytest.approx(1 / 3)  # the leader and two unreached
    assert x[1, col["session:top3"]] == pytest.approx((1 + far) / 3)
    assert x[0, col["session:share"]] == x[3, col["session:share"]] == pytest.approx(1 / 4)
    near = 1 - np.log1p(1) / np.log(401)
    assert x[4, col["session:best"]] == pytest.approx(near)
    assert x[5, col["session:best"]] == 0.0  # alone in its session but for an unreached turn
    assert x[4, col["session:size"]] == pytest.approx(np.log1p(2) / 5)
    # nothing of session 1 moves the context of session 0
    assert x[0, col["session:size"]] == pytest.approx(np.log1p(4) / 5)
    # neighbours two places away, within the session only
    assert x[2, col["prev2:depth"]] == 1.0 and x[0, col["next2:depth"]] == pytest.approx(far)
    assert x[3, col["prev2:depth"]] == 0.0 and x[3, col["next2:depth"]] == 0.0
    assert x[4, col["prev2:depth"]] == 0.0 and x[4, col["next:depth"]] == pytest.approx(near)


def test_packing_spends_one_header_per_session_and_respects_the_budget() -> None:
    rows = [0, 2, 4, 5]
    costs, heads, sessions, shorts = packing_inputs(SPACE, rows)
    assert heads == [count_tokens("[1 March 2024]")] * 2 + [count_tokens("[2 March 2024]")] * 2
    assert shorts == [None] * 4  # no statements given
    p = np.asarray([0.9, 0.8, 0.7, 0.1])
    budget = costs[0] + costs[1] + heads[0] + costs[2] + heads[2]
    chosen = select_lists(costs, heads, sessions, p, budget, gamma=0.0)
    assert chosen == [(0, True), (1, True), (2, True)]  # two headers; the fourth does not fit
    hits = render(SPACE, [(rows[n], float(p[n]), None) for n, _ in chosen])
    packed = pack(hits, budget)
    assert packed.included == [h.id for h in hits] and packed.tokens == budget
    assert packed.context.count("[1 March 2024]") == 1 and "[2 March 2024]" in packed.context
    assert packed.context.splitlines()[1] == "Maya: We adopted a greyhound called Pepper."
    assert all(len(h.source_ids) == 1 for h in hits)
    # without headers every line carries its day and costs it
    flat = render(SPACE, [(rows[n], float(p[n]), None) for n, _ in chosen], headers=False)
    assert flat[1].text == "[1 March 2024] Maya: A rescue in Bristol."
    # gamma 1 prefers evidence per token: a short turn over a longer, likelier one
    short = select_lists([20, 4], [0, 0], ["a", "a"], np.asarray([0.5, 0.3]), 20, gamma=1.0)
    assert short[0] == (1, True)


def test_resolved_times_count_against_the_budget_not_against_the_turns_place() -> None:
    """A line of 10 tokens, 5 of them its resolved times, is worth its P per 5 tokens when
    the order is made (ahead of a 6-token line as likely), and costs all 10 when it is fitted
    (so the 6-token line no longer fits the 10 left)."""
    p = np.asarray([0.5, 0.5])
    args = ([10, 6], [0, 0], ["a", "a"], p, 10)
    assert select_lists(*args, gamma=1.0) == [(1, True)]  # 6 tokens beat 10
    assert select_lists(*args, gamma=1.0, notes=[5, 0]) == [(0, True)]
    assert select_lists([10, 6], [0, 0], ["a", "a"], p, 9, gamma=1.0, notes=[5, 0]) == [
        (1, True)]  # it costs its 10 tokens all the same: 9 do not hold it


def test_a_statement_stands_in_for_its_turn_and_gives_way_to_it_when_room_is_left() -> None:
    costs, heads, sessions = [30, 30, 30], [0, 0, 0], ["a", "a", "a"]
    p = np.asarray([0.9, 0.8, 0.7])
    # whole turns only: two of three fit in 70 tokens
    assert select_lists(costs, heads, sessions, p, 70, gamma=1.0) == [(0, True), (1, True)]
    # statements of 10 tokens: all three are shown, the likeliest whole (30 + 10 + 10 = 50),
    # and the second too once its whole line's turn comes (its 20 more tokens fit in 70)
    both = select_lists(costs, heads, sessions, p, 70, gamma=1.0, shorts=[10, 10, 10])
    assert dict(both) == {0: True, 1: True, 2: False}
    # a tight budget keeps them all as statements
    assert dict(select_lists(costs, heads, sessions, p, 30, 1.0, shorts=[10, 10, 10])) == {
        0: False, 1: False, 2: False}
    # a statement no cheaper than its turn is not offered: the third turn's statement comes
    # first (0.7 / 10), nothing else fits beside it, and it is shown whole in the end
    assert dict(select_lists(costs, heads, sessions, p, 30, 1.0, shorts=[30, None, 10])) == {
        2: True}
    # gamma 0 ranks by P alone: the whole of each turn comes before the next turn's statement
    assert dict(select_lists(costs, heads, sessions, p, 65, 0.0, shorts=[10, 10, 10])) == {
        0: True, 1: True}
    statement = Statement("e1", statement_line("Maya", "A rescue in Bristol."), 0.8)
    hits = render(SPACE, [(0, 0.9, None), (2, 0.8, statement)])
    assert hits[1].id == "e1" and hits[1].kind == "edu" and hits[1].text == statement.line
    assert statement.line == "Maya: A rescue in Bristol."
    assert hits[1].source_turn_ids == ["t0-2"] and hits[1].source_ids == ["D0:2"]
    assert statement_line("Maya", "Maya adopted a dog.") == "Maya adopted a dog."
    costs2, _, _, shorts2 = packing_inputs(SPACE, [0, 2], [None, statement])
    assert shorts2 == [None, statement.tokens] and costs2[1] == SPACE.rows[2].tokens


def test_ranker_file_round_trips_and_refuses_what_it_cannot_read(tmp_path: Path) -> None:
    samples = toy_samples()
    x = samples[0].x
    for objective in ("trees", "listwise"):
        ranker = fit(samples, list(range(len(FEATURES))), objective=objective)
        path = tmp_path / f"{objective}.json"
        ranker.save(path)
        again = load_ranker(str(path))
        assert type(again) is type(ranker)
        assert np.allclose(again.probabilities(x), ranker.probabilities(x), atol=1e-5)
        data = json.loads(path.read_text())
        with pytest.raises(ConfigurationError, match="does not compute"):
            from_json({**data, "features": ["nonsense", *data["features"][1:]]}, tmp_path)
    assert (tmp_path / "trees.trees.txt").exists()
    with pytest.raises(ConfigurationError, match="not a fusion ranker"):
        from_json({**data, "coef": data["coef"][:-1]})
    trees = json.loads((tmp_path / "trees.json").read_text())
    with pytest.raises(ConfigurationError, match="do not read the features"):
        from_json({**trees, "features": trees["features"][:-1]}, tmp_path)
    with pytest.raises(ConfigurationError, match="not a fusion ranker"):
        from_json(trees, tmp_path / "elsewhere")  # its trees are missing


def test_a_ranker_trained_without_a_family_reads_only_its_features() -> None:
    samples = toy_samples()
    kept = [i for i, name in enumerate(FEATURES) if name not in FAMILIES["bm25"]]
    ranker = fit(samples, kept)
    assert "bm25:rr" not in ranker.features and len(ranker.features) == len(kept)
    x = samples[0].x.copy()
    before = ranker.probabilities(x)
    x[:, FEATURES.index("bm25:rr")] = 0.0  # a column it does not read
    assert np.array_equal(ranker.probabilities(x), before)


def test_shipped_ranker_loads_offline_with_held_out_metrics() -> None:
    ranker = load_ranker(None)
    m = ranker.metrics
    left_out = {name for family in m["left_out"] for name in FAMILIES[family]}
    assert ranker.features == tuple(f for f in FEATURES if f not in left_out)
    assert SHIPPED.stat().st_size < 50_000
    if isinstance(ranker, TreeRanker):  # three averaged fits of 250 small trees each
        assert TreeRanker.trees_file(SHIPPED).stat().st_size < 1_000_000
        assert len(ranker.boosters) == m["seeds"]
    assert m["folds"] >= 2 and m["questions"] > 100
    for split in m["trained_on"]:
        assert 0.0 < m["out_of_fold"][split]["1000"] <= m["out_of_fold"][split]["2000"] <= 1.0


def toy_samples() -> list[Sample]:
    """Ten conversations of two questions each; evidence is what the bm25 source ranks high."""
    rng = np.random.default_rng(0)
    col = FEATURES.index("bm25:rr")
    out = []
    for conv in range(10):
        for _ in range(2):
            x = rng.random((30, len(FEATURES))).astype(np.float32)
            y = (x[:, col] > 0.8).astype(np.int8)
            out.append(Sample("locomo", "dev.json", f"c{conv}", "single-hop", x, y,
                              [10] * 30, [0] * 30, ["s"] * 30, max(1, int(y.sum()))))
    return out


@pytest.mark.slow  # trains or starts processes: left out of ./run check
def test_training_holds_conversations_out_and_learns_a_signal() -> None:
    samples = toy_samples()
    fold = folds_of(samples, 5)
    assert all(fold[i] == fold[i + 1] for i in range(0, 20, 2))  # a conversation stays whole
    assert sorted(set(fold.tolist())) == [0, 1, 2, 3, 4]
    scores = out_of_fold(samples, fold, list(range(len(FEATURES))))
    learned = np.mean([recall(s, p, 120, 0.0) for s, p in zip(samples, scores, strict=True)])
    shuffled = np.mean([recall(s, np.random.default_rng(1).random(30), 120, 0.0)
                        for s in samples])
    assert learned > 0.9 > shuffled + 0.3
    # statements of 3 tokens where turns cost 10: the same budget reaches more evidence, and
    # without them (the default) packing is as before
    for s in samples:
        s.shorts = [3] * len(s.costs)
    pairs = list(zip(samples, scores, strict=True))
    short = np.mean([recall(s, p, 30, 1.0, statements=True) for s, p in pairs])
    whole = np.mean([recall(s, p, 30, 1.0) for s, p in pairs])
    assert short > whole + 0.2
    for s in samples:
        s.shorts = []
    assert np.mean([recall(s, p, 30, 1.0, statements=True) for s, p in pairs]) == whole


def test_client_vectors_score_like_neo4j_and_break_ties_by_id() -> None:
    units = DenseUnits.build(["a", "b", "c", "d"],
                             [[2.0, 0.0], [0.0, 1.0], [1.0, 1.0], [0.0, 1.0]],
                             [["t1"], ["t2"], ["t3"], ["t4"]])
    # (1 + cosine) / 2, as vector.similarity.cosine; unnormalised rows and query alike
    found = units.nearest(np.array([0.0, 3.0], dtype=np.float32), 3)
    assert [i for i, _ in found] == [1, 3, 2]  # b and d tie: by id
    assert [s for _, s in found] == pytest.approx([1.0, 1.0, (1 + 2 ** -0.5) / 2])
    assert [i for i, _ in units.nearest(np.array([0.0, 1.0], dtype=np.float32), 1)] == [1]
    assert len(units.nearest(np.array([1.0, 0.0], dtype=np.float32), 10)) == 4
    assert units.nearest(np.array([1.0, 0.0], dtype=np.float32), 0) == []
    assert DenseUnits.build([], [], []).nearest(np.array([1.0, 0.0]), 3) == []


def test_the_space_cache_keeps_its_weight_within_capacity() -> None:
    caches = SpaceCaches()
    cache: SpaceCache[list[int]] = caches.part("test", 5, len)
    store = SimpleNamespace(settings=SimpleNamespace(neo4j_uri="bolt://x"), database="neo4j")
    loads: list[str] = []

    def state(space: str, revision: str = "r1") -> SpaceState:
        return SpaceState(space, 1, 10, 1, {}, revision)

    def get(space: str, size: int, revision: str = "r1") -> list[int]:
        return cache.get(store, state(space, revision),  # type: ignore[arg-type]
                         lambda: loads.append(space) or [0] * size)

    get("a", 2), get("b", 2), get("a", 2)  # a is used again: b is now the oldest
    assert loads == ["a", "b"]
    get("c", 2)
    assert loads == ["a", "b", "c"] and len(cache) == 2
    get("b", 2)  # b left to make room, so it is read again
    assert loads == ["a", "b", "c", "b"]
    get("b", 2, revision="r2")  # the space changed: read afresh, the old revision let go
    assert loads[-1] == "b" and len(loads) == 5 and len(cache) == 2
    get("b", 2, revision="r1")  # an older revision (a restore) is never a cache hit either
    assert len(loads) == 6
    caches.forget("b")
    get("b", 2, revision="r2")
    assert len(loads) == 7
    assert cache.latest(store, "b") == [0, 0]  # type: ignore[arg-type]
    assert cache.latest(store, "zzz") is None  # type: ignore[arg-type]
    caches.forget("b")
    assert cache.latest(store, "b") is None  # type: ignore[arg-type]
    assert caches.part("test", 7) is cache and cache.capacity == 7  # one part per name
    assert SpaceCaches().part("test", 5, len) is not cache  # each client its own


def test_a_rebuilt_bm25_keeps_the_terms_it_had_and_scores_as_a_fresh_one() -> None:
    import bm25s

    from graphmem.retrieve.fused.space_index import tokenize

    SPACE.bm25("greyhound")  # the old table's index is built
    grown = table(*[[(r.speaker, r.text) for r in SPACE.rows if r.session_id == s]
                    for s in ("s0", "s1")], [("Ana", "Pepper chased a greyhound in Bristol")])
    memo = SPACE.token_memo()
    assert len(memo) == len(SPACE.rows)
    kept = SpaceTurns(grown.rows, carried=memo)
    fresh = SpaceTurns(list(grown.rows))
    asked: list[list[str]] = []
    import graphmem.retrieve.fused.space_index as index_module
    real = index_module.tokenize
    index_module.tokenize = lambda texts, ids=True: asked.append(list(texts)) or real(texts, ids)
    try:
        kept.bm25("greyhound in Bristol")
    finally:
        index_module.tokenize = real
    # the one new turn, then the question: the others' terms were kept
    assert asked == [["Pepper chased a greyhound in Bristol"], ["greyhound in Bristol"]]
    for question in ("greyhound in Bristol", "Which dogs did they adopt?", "knee", "zebra"):
        assert np.array_equal(kept.bm25(question), fresh.bm25(question))
    # the same scores as bm25s indexing its own token ids (what the table did before)
    model = bm25s.BM25(k1=1.2, b=0.75, method="lucene")
    model.index(tokenize([r.text for r in grown.rows]), show_progress=False)
    terms = [t for t in tokenize(["greyhound in Bristol"], ids=False)[0]
             if t in model.vocab_dict]
    assert np.allclose(fresh.bm25("greyhound in Bristol"), model.get_scores(terms), atol=1e-6)


def test_vectors_kept_from_an_earlier_read_are_used_as_they_are() -> None:
    old = DenseUnits.build(["a", "b"], [[3.0, 4.0], [1.0, 0.0]], [["t1"], ["t2"]], ["h1", "h2"])
    assert set(old.held()) == {("a", "h1"), ("b", "h2")}
    mixed = DenseUnits.build(["a", "b", "c"], [old.held()[("a", "h1")], [0.0, 2.0], [1.0, 1.0]],
                             [["t1"], ["t2"], ["t3"]], ["h1", "h2x", "h3"])
    fresh = DenseUnits.build(["a", "b", "c"], [[3.0, 4.0], [0.0, 2.0], [1.0, 1.0]],
                             [["t1"], ["t2"], ["t3"]], ["h1", "h2x", "h3"])
    assert np.array_equal(mixed.vectors, fresh.vectors)
    assert mixed.hashes == ["h1", "h2x", "h3"]
    assert DenseUnits.build(["a"], [[1.0, 0.0]], [["t1"]]).held() == {}  # no hash: never kept


@pytest.mark.slow  # trains or starts processes: left out of ./run check
def test_train_writes_a_loadable_ranker_with_its_held_out_metrics(tmp_path: Path) -> None:
    # turns of 100 tokens: 5 of a question's 30 fit 500 tokens, so the order decides
    samples = [dataclasses.replace(s, costs=[100] * len(s.costs)) for s in toy_samples()]
    out = tmp_path / "ranker.json"
    metrics = train(samples, 2, out, ["dev.json"], ablate=True)
    ranker = load_ranker(str(out))
    assert isinstance(ranker, TreeRanker) and ranker.metrics == metrics
    assert ranker.rule.gamma == metrics["gamma"] and ranker.features == FEATURES
    assert metrics["out_of_fold"]["dev.json"]["500"] > 0.6  # the bm25 column carries the order
    for key in ("with_statements", "listwise_out_of_fold"):  # each at its own best gamma
        assert metrics[key]["gamma"] in (0.0, 0.25, 0.5, 0.75, 1.0)
        assert set(metrics[key]) >= {"pooled", "dev.json"}
    assert set(metrics["without_family"]) == set(FAMILIES)
    assert metrics["without_family"]["bm25"]["dev.json"]["500"] \
        < metrics["out_of_fold"]["dev.json"]["500"] - 0.3  # the signal's family is missed

