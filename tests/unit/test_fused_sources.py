"""The table of candidate sources: what is derived from it, and a plug-in's row."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from graphmem.errors import ConfigurationError
from graphmem.retrieve.base import SpaceState
from graphmem.retrieve.fused import sources
from graphmem.retrieve.fused.candidates import available, optional_layers
from graphmem.retrieve.fused.features import (
    FAMILIES,
    FEATURES,
    TURN_SOURCES,
    columns,
    families,
    monotone,
)
from graphmem.retrieve.fused.ranker import LinearRanker
from graphmem.retrieve.fused.sources import Pools


@pytest.fixture()
def plugin() -> Iterator[sources.Source]:
    added = sources.register_source(sources.Source(
        "questions", layer="questions", depth=7, statement="questions/asked"))
    yield added
    sources.unregister_source("questions")


def test_the_shipped_ranker_columns_come_from_the_table_in_their_order() -> None:
    names = [s.name for s in sources.BUILT_IN]
    assert names == ["bm25", "vector", "units", "edus", "scenes", "events", "episodes"]
    assert FEATURES[:3 * len(names)] == tuple(c for s in sources.BUILT_IN for c in s.columns)
    assert TURN_SOURCES == ("bm25", "vector", "edus")
    assert sources.dense_names() == ("vector", "units", "edus", "scenes", "episodes")
    assert optional_layers() == ("segments", "edus", "scenes", "events", "episodes")
    assert sources.costliest_first(["episodes", "units", "vector", "scenes", "events",
                                    "edus"]) == ["edus", "vector", "events", "units",
                                                 "scenes", "episodes"]


def test_a_source_depth_is_a_pool_or_a_number() -> None:
    pools = Pools(units=12, anchors=4)
    assert sources.source("units").k(pools) == 12
    assert sources.source("events").k(pools) == 4
    events = sources.source("events").params(pools)
    assert events == {"w": pools.window, "alpha": pools.alpha, "beta": 0.5,
                      "limit": pools.event_turns}
    assert sources.Source("x", "x", 9, "x/y").k(pools) == 9


def test_a_plugin_source_adds_columns_after_graphmems_own(plugin: sources.Source) -> None:
    assert columns() == (*FEATURES, "questions:rr", "questions:depth", "questions:score")
    assert families()["questions"] == plugin.columns and "questions" not in FAMILIES
    assert "questions" in optional_layers()
    assert monotone("questions:depth") == 1 and monotone("questions:score") == 0
    assert monotone("says_nothing") == -1
    # a ranker reading it names it; one trained without it does not run it
    reads = LinearRanker(features=("bm25:rr", "questions:rr"), mean=np.zeros(2),
                         scale=np.ones(2), coef=np.ones(2), intercept=0.0)
    assert reads.plugin_sources == ("questions",) and reads.columns[-1] == len(FEATURES)
    plain = LinearRanker(features=("bm25:rr",), mean=np.zeros(1), scale=np.ones(1),
                         coef=np.ones(1), intercept=0.0)
    assert plain.plugin_sources == ()


def test_a_source_is_available_where_a_session_holds_its_layer(
        plugin: sources.Source) -> None:
    held = SpaceState("s", 10, 10, 2, {"questions": 1, "edus": 2})
    found = available(held)
    assert "questions" in found and "edus" not in found and "bm25" in found
    lacking = SpaceState("s", 10, 10, 2, {"questions": 2})
    assert "questions" not in available(lacking)


@pytest.mark.parametrize("bad", [
    sources.Source("kind", "x", 5, "x/y"),  # a family's name
    sources.Source("a:b", "x", 5, "x/y"),
    sources.Source("nostatement", "x", 5),
    sources.Source("dense", "x", 5, "x/y", dense=True),  # the client cannot read its vectors
    sources.Source("sparse", "x", 5, "x/y", vectors="x/v"),  # vectors a sparse one never uses
    sources.Source("edus", "x", 5, "x/y"),  # graphmem's own name, another source
])
def test_a_bad_plugin_source_is_refused(bad: sources.Source) -> None:
    with pytest.raises(ConfigurationError):
        sources.register_source(bad)
    assert bad not in sources.plugin_sources()


def test_graphmems_own_sources_cannot_be_removed() -> None:
    with pytest.raises(ConfigurationError, match="graphmem's own"):
        sources.unregister_source("bm25")
