"""Where missed evidence was lost: not ranked, ranked below the budget, or skipped by packing."""

from graphmem.eval.diagnosis import LossTally, where_lost
from graphmem.models import Hit, SearchResult
from graphmem.retrieve.packing import pack


def hit(ident: str, words: int) -> Hit:
    return Hit(id=ident, kind="turn", text=" ".join([f"w{ident}"] * words), score=1.0,
               source_turn_ids=[f"T{ident}"], source_ids=[ident])


def result(hits: list[Hit], budget: int) -> SearchResult:
    packed = pack(hits, budget)
    return SearchResult(question="q", space="s", strategy="x", budget=budget, hits=hits,
                        context=packed.context, context_tokens=packed.tokens,
                        included=packed.included, latency_ms=1.0)


EVIDENCE = {key: "" for key in "abcde"}


def test_places_from_the_hits() -> None:
    found = result([hit("a", 5), hit("b", 100), hit("c", 5), hit("d", 50)], budget=12)
    assert found.included == ["a", "c"]
    assert where_lost(found, EVIDENCE) == [("b", "cut_by_packing", 2), ("d", "below_budget", 4),
                                           ("e", "not_ranked", None)]


def test_places_from_a_whole_ranking() -> None:
    # a strategy that returns only what it packed (a, c) hands its ranking over separately
    found = result([hit("a", 5), hit("c", 5)], budget=12)
    ranking = [["a"], ["b"], ["c"], ["d"]]
    assert where_lost(found, EVIDENCE, ranking) == [("b", "cut_by_packing", 2),
                                                    ("d", "below_budget", 4),
                                                    ("e", "not_ranked", None)]
    tally = LossTally()
    tally.add("multi-hop", 12, found, EVIDENCE, ranking)
    tally.add("multi-hop", 12, found, {"a": "", "d": ""}, ranking)
    summary = tally.summary([12])["multi-hop"]["12"]
    assert summary["evidence"] == 7
    assert (summary["not_ranked"], summary["below_budget"], summary["cut_by_packing"]) == (
        round(1 / 7, 4), round(2 / 7, 4), round(1 / 7, 4))
    assert summary["below_budget_rank_median"] == 4
