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
    "graphmem": Recipe(FusedSearch, {},
        "ours, the default: candidates from every layer the space holds (the space's own "
        "BM25 and dense search over turns, MMS units, EMem statements, CAST scenes, ES-Mem "
        "events, EMA units, each mapped to its turns, plus their neighbours), ranked by one "
        "learned model over their ranks, summary scores, neighbours, salience, the persons "
        "and dates the question names, position and length; packed by evidence per token, "
        "session by session with one date header each (`docs/results-graphmem.md`)"),
    "graphmem-statements": Recipe(FusedSearch, {"statements": True},
        "ours: `graphmem` that may show a turn by its event statement nearest the question "
        "when that is cheaper (the whole turn when room is left): more evidence turns fit a "
        "budget, but no more of the answers' words and a small model answered worse from it, "
        "so it is not the default"),
    "graphmem-llm": Recipe(FusedSearch, {"rerank": 30},
        "ours: `graphmem` whose 30 best candidates the configured LLM reads once, marking "
        "those that hold part of the answer, which go first (for questions that gather "
        "several facts); without an LLM, or when its reply is unusable, it is `graphmem`"),
    "turns": Recipe(TurnSearch, {},
        "BM25 (fulltext index) and dense (vector index) search over raw turns, fused by "
        "reciprocal rank in Cypher"),
    "turns-bm25": Recipe(TurnSearch, {"vector": False},
        "the BM25 half of `turns` alone"),
    "turns-vector": Recipe(TurnSearch, {"bm25": False},
        "the dense half of `turns` alone"),
    "emem": Recipe(EMemSearch, {},
        "EMem: the K_e = 30 EDUs nearest the question, a recall-oriented filter (the LLM "
        "when configured, else a similarity floor), at most K = 10 rendered with date and "
        "speaker"),
    "emem-g": Recipe(EMemSearch, {"graph": True},
        "EMem-G: EDU seeds plus argument seeds from the question's mentions (K_a = 10 per "
        "mention, at most 30), Personalized PageRank (damping 0.5) on the space's "
        "EDU-argument graph in GDS, top K = 10 EDUs"),
    "emem-fill": Recipe(EMemSearch, {"k": None},
        "ours: `emem` with as many statements as the budget holds instead of ten"),
    "emem-g-fill": Recipe(EMemSearch, {"graph": True, "k": None},
        "ours: `emem-g` with as many statements as the budget holds instead of ten"),
    "esmem": Recipe(ESMemSearch, {},
        "ES-Mem: the k = 10 boundaries nearest the question (vector index) anchor windows of "
        "w = 3 events along the event chain; each event scores alpha·S_sum + (1 - "
        "alpha)·S_ctx (alpha = 0.7, S_sum its summary's similarity, S_ctx the best anchor "
        "whose window holds it); the top 10 events' raw turns, with session date and "
        "speakers; one Cypher query"),
    "esmem-fill": Recipe(ESMemSearch, {"top_k": None},
        "ours: the same ranking, with as many events as the budget holds"),
    "esmem-turns": Recipe(ESMemSearch, {"turns": True},
        "ours: `esmem`'s events choose, then their turns are ranked one by one and shown up "
        "to the budget"),
    "mms": Recipe(MMSSearch, {},
        "MMS: the retrieval units nearest the question (as many as the budget can show, "
        "about one per 40 tokens), each shown as its context unit"),
    "mms-turns": Recipe(MMSSearch, {"turns": True, "tokens_per_unit": 20},
        "ours: the same units choose, but each shows only its round's turns with the day, so "
        "the budget goes to what was said"),
    "cast": Recipe(CastSearch, {},
        "CAST: the semantic top k = 8 turns (EMem-G's Personalized PageRank, each turn "
        "ranked by its best statement; dense turn search when the graph gives nothing), "
        "those that lie in one of the 8 scenes nearest the question (filtered by the "
        "persons, dates and places it names) moved to the front; nothing added"),
    "cast-fill": Recipe(CastSearch, {"k": None},
        "ours: the same with as many semantic turns as the budget holds"),
    "cast-scenes": Recipe(CastSearch, {"k": None, "add_scenes": True, "profiles": True},
        "ours: `cast-fill`'s list and the retrieved scenes' turns fused by reciprocal rank, "
        "so a scene can add what the graph missed; a question naming someone also searches "
        "the scenes of their profile"),
    "ema": Recipe(EMASearch, {},
        "EMA's Caller: the question with its named entities appended, embedded, matched "
        "against the episodic units' representations (tags, summary, the links' tags); the "
        "top k = 10 units with day, importance and confidence; a superseded unit right after "
        "the unit that replaced it"),
    "ema-fill": Recipe(EMASearch, {"k": None, "annotate": False},
        "ours: the same with as many units as the budget holds, without importance and "
        "confidence in the text"),
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


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """``NAME`` or ``NAME:option=value[,option=value]`` (e.g. ``graphmem:times=false``) as the
    recipe's name and its overrides, each value read as its config field's type; an unknown
    recipe or option, or a value of the wrong type, is refused naming it."""
    name, _, raw = spec.partition(":")
    recipe = RECIPES.get(name.strip())
    if recipe is None:
        raise UnknownStrategyError(
            f"unknown strategy {name!r}; choose from {', '.join(strategy_names())}")
    hints = get_type_hints(recipe.strategy.config_type)
    overrides: dict[str, Any] = {}
    for item in filter(None, (part.strip() for part in raw.split(","))):
        key, sep, value = (part.strip() for part in item.partition("="))
        if not sep or key not in hints:
            raise InputError(f"strategy {spec!r}: {item!r} is not option=value with one of "
                             f"{', '.join(sorted(hints))}", field="--strategy")
        try:
            overrides[key] = TypeAdapter(hints[key]).validate_python(value)
        except ValidationError as exc:
            raise InputError(f"strategy {spec!r}: {key}={value!r} is not "
                             f"{_type_name(hints[key])} ({exc.errors()[0]['msg']})",
                             field="--strategy") from None
    get_strategy(name.strip(), **overrides)  # every other check a search makes
    return name.strip(), overrides


def _type_name(hint: Any) -> str:
    return getattr(hint, "__name__", None) or str(hint).replace("typing.", "")


load_plugins()  # last: an installed plug-in registers into the registry above
