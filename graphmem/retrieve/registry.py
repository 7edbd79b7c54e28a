"""The one registry of retrieval strategies: named recipes, each a strategy class and options.

A new strategy is its module (a :class:`~graphmem.retrieve.base.Strategy` subclass with its
config dataclass), its Cypher files and its tests, plus one line here per recipe. Code outside
graphmem adds recipes with :func:`register`, from a package found by its ``graphmem.plugins``
entry point (:mod:`graphmem.plugins`, loaded when this registry is first imported).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, get_type_hints

from pydantic import TypeAdapter, ValidationError

from graphmem.errors import ConfigurationError, InputError, UnknownStrategyError
from graphmem.plugins import load_plugins
from graphmem.retrieve.base import Strategy
from graphmem.retrieve.cast import CastSearch
from graphmem.retrieve.ema import EMASearch
from graphmem.retrieve.emem import EMemSearch
from graphmem.retrieve.esmem import ESMemSearch
from graphmem.retrieve.fused import FusedSearch
from graphmem.retrieve.mms import MMSSearch
from graphmem.retrieve.turns import TurnSearch

StrategyClass = type[Strategy]  # type: ignore[type-arg]


@dataclass(frozen=True)
class Recipe:
    strategy: StrategyClass
    options: dict[str, Any] = field(default_factory=dict)
    about: str = ""


RECIPES: dict[str, Recipe] = {
    "graphmem": Recipe(FusedSearch, {}, "ours: every layer's candidates, one learned ranking, "
                       "packed by evidence per token with one date header per session"),
    "graphmem-statements": Recipe(FusedSearch, {"statements": True},
                                  "ours: `graphmem` that may show a turn's statement nearest "
                                  "the question in its place (more evidence credited, no more "
                                  "answer words, lower sampled QA)"),
    "turns": Recipe(TurnSearch, {}, "BM25 and dense search over raw turns, fused by rank"),
    "turns-bm25": Recipe(TurnSearch, {"vector": False}, "the BM25 half of `turns`"),
    "turns-vector": Recipe(TurnSearch, {"bm25": False}, "the dense half of `turns`"),
    "emem": Recipe(EMemSearch, {}, "EMem: nearest EDUs, filtered, at most ten"),
    "emem-g": Recipe(EMemSearch, {"graph": True}, "EMem-G: EDUs by Personalized PageRank"),
    "emem-fill": Recipe(EMemSearch, {"k": None}, "ours: `emem` up to the budget"),
    "emem-g-fill": Recipe(EMemSearch, {"graph": True, "k": None},
                          "ours: `emem-g` up to the budget"),
    "esmem": Recipe(ESMemSearch, {}, "ES-Mem: boundary anchors, event windows, top ten events"),
    "esmem-fill": Recipe(ESMemSearch, {"top_k": None}, "ours: `esmem` up to the budget"),
    "esmem-turns": Recipe(ESMemSearch, {"turns": True},
                          "ours: `esmem`'s events, then their turns ranked one by one"),
    "mms": Recipe(MMSSearch, {}, "MMS: nearest retrieval units, shown as their context units"),
    "mms-turns": Recipe(MMSSearch, {"turns": True, "tokens_per_unit": 20},
                        "ours: MMS retrieval units choose, their rounds' turns are shown"),
    "cast": Recipe(CastSearch, {}, "CAST: semantic top 8, those in retrieved scenes first"),
    "cast-fill": Recipe(CastSearch, {"k": None}, "ours: `cast` up to the budget"),
    "cast-scenes": Recipe(CastSearch, {"k": None, "add_scenes": True, "profiles": True},
                          "ours: `cast-fill` with the retrieved scenes' turns fused in; a "
                          "question naming someone searches their profile's scenes"),
    "ema": Recipe(EMASearch, {}, "EMA: the ten episodic units nearest the question and its "
                  "entities; superseded units after what replaced them"),
    "ema-fill": Recipe(EMASearch, {"k": None, "annotate": False},
                       "ours: `ema` up to the budget, without the scores in the text"),
}

# the strategy the demo shows and the README recommends, also the client's default
# (GRAPHMEM_DEFAULT_STRATEGY): the best evidence recall measured on every dev split at every
# budget (docs/results-graphmem.md)
RECOMMENDED = "graphmem"


def register(name: str, recipe: Recipe) -> None:
    """Add a recipe defined outside graphmem."""
    if name in RECIPES and RECIPES[name] != recipe:
        raise ConfigurationError(f"a strategy named {name!r} is registered already")
    RECIPES[name] = recipe


def strategy_names() -> list[str]:
    return sorted(RECIPES)


def get_strategy(name: str, **overrides: Any) -> Strategy:  # type: ignore[type-arg]
    """The named recipe; keyword overrides change fields of its config."""
    recipe = RECIPES.get(name)
    if recipe is None:
        raise UnknownStrategyError(
            f"unknown strategy {name!r}; choose from {', '.join(strategy_names())}")
    config_type = recipe.strategy.config_type
    known = {f.name for f in fields(config_type)}
    unknown = sorted(set(overrides) - known)
    if unknown:
        raise UnknownStrategyError(
            f"strategy {name!r} has no options {unknown}; its options: {', '.join(sorted(known))}")
    hints = get_type_hints(config_type)
    for option, value in overrides.items():
        try:
            TypeAdapter(hints[option]).validate_python(value, strict=True)
        except ValidationError as exc:
            raise InputError(f"strategy {name!r}: option {option}={value!r} is not "
                             f"{_type_name(hints[option])} ({exc.errors()[0]['msg']})",
                             field=f"strategy option {option}") from None
    return recipe.strategy(name, config_type(**{**recipe.options, **overrides}))


def _type_name(hint: Any) -> str:
    return getattr(hint, "__name__", None) or str(hint).replace("typing.", "")


load_plugins()  # last: an installed plug-in registers into the registry above
