"""The one registry of ingest layers, and the order they run in.

A new layer is its module or package here (a :class:`~graphmem.ingest.layer.Layer` subclass),
its Cypher files and its tests, plus one line in ``LAYERS``. Code outside graphmem adds one
with :func:`register`, from a package found by its ``graphmem.plugins`` entry point
(:mod:`graphmem.plugins`, loaded when this registry is first imported). Names in
``GRAPHMEM_INGEST_LAYERS`` (or ``--layers``) are checked here and put in an order where every
layer comes after the layers it needs.
"""

from __future__ import annotations

from collections.abc import Iterable

from graphmem.errors import ConfigurationError
from graphmem.ingest.layer import Layer
from graphmem.ingest.layers.edus.layer import EduLayer
from graphmem.ingest.layers.episodes.layer import EpisodeLayer
from graphmem.ingest.layers.events.layer import EventLayer
from graphmem.ingest.layers.scenes.layer import SceneLayer
from graphmem.ingest.layers.segments.layer import SegmentLayer
from graphmem.ingest.layers.turns import TurnsLayer
from graphmem.plugins import load_plugins

LayerClass = type[Layer]  # type: ignore[type-arg]

LAYERS: dict[str, LayerClass] = {
    "turns": TurnsLayer,  # raw sessions and turns: every other layer needs it
    "edus": EduLayer,  # EMem: event statements, arguments, synonym edges
    "events": EventLayer,  # ES-Mem: events, boundaries, the event chain
    "segments": SegmentLayer,  # MMS: a retrieval unit and a context unit per round
    "scenes": SceneLayer,  # CAST: characters, scenes by time, place and topic, profiles
    "episodes": EpisodeLayer,  # EMA: MemDecider salience, episodic units, links, updates
}


def register(layer: LayerClass) -> LayerClass:
    """Add a layer defined outside graphmem (usable as a class decorator)."""
    if layer.name in LAYERS and LAYERS[layer.name] is not layer:
        raise ConfigurationError(f"a layer named {layer.name!r} is registered already")
    LAYERS[layer.name] = layer
    return layer


def layer_names() -> list[str]:
    return list(LAYERS)


def parse_names(spec: str | Iterable[str]) -> list[str]:
    """Layer names from a comma-separated text or a list; unknown names are an error."""
    items = spec.split(",") if isinstance(spec, str) else list(spec)
    names = list(dict.fromkeys(n.strip() for n in items if n.strip()))
    unknown = [n for n in names if n not in LAYERS]
    if unknown:
        raise ConfigurationError(f"unknown layers {unknown}; known: {', '.join(LAYERS)}")
    return names


def with_needs(names: Iterable[str]) -> list[str]:
    """``names`` and everything they need, each after its needs (registry order breaks ties).
    A cycle of needs is an error."""
    order: list[str] = []
    visiting: list[str] = []

    def visit(name: str) -> None:
        if name in order:
            return
        if name in visiting:
            raise ConfigurationError(f"layers need each other: {' -> '.join([*visiting, name])}")
        if name not in LAYERS:
            raise ConfigurationError(f"unknown layer {name!r}; known: {', '.join(LAYERS)}")
        visiting.append(name)
        for need in LAYERS[name].needs:
            visit(need)
        visiting.pop()
        order.append(name)

    for name in sorted(dict.fromkeys(names), key=_registry_position):
        visit(name)
    return order


def run_order(spec: str | Iterable[str], *, present: Iterable[str] = ()) -> list[str]:
    """The layers to compute for ``spec``: the named ones and their needs, minus the layers
    already ``present`` (their results are read from the graph instead), in needs order."""
    named, skip = set(parse_names(spec)), set(present)
    return [n for n in with_needs(named) if n in named or n not in skip]


def _registry_position(name: str) -> int:
    names = list(LAYERS)
    return names.index(name) if name in names else len(names)


load_plugins()  # last: an installed plug-in registers into the registry above
