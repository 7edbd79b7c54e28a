"""The graph's vocabulary is declared by the layers that write it (``Layer.owns``, ``joins``,
``unsourced``, ``vectors``); every Cypher file and list that names all the labels of a kind
is held to those declarations here, so a label added to a layer fails a test naming each
place it must also go, and one left out of a layer's declaration fails too."""

from __future__ import annotations

import re
from pathlib import Path
from typing import ClassVar

from graphmem.cypher import load
from graphmem.ingest.layer import Joins, Layer, Owns
from graphmem.ingest.layers import LAYERS
from graphmem.spacefile import CORE_LABELS, Vocabulary, declared

ROOT = Path(__file__).resolve().parents[2]
OWN = [layer for layer in LAYERS.values() if layer.__module__.startswith("graphmem.")]
# GDS projections' bookkeeping: a node of no space, which no layer writes
NOT_IN_A_SPACE = {"Projection"}


def vocabulary() -> Vocabulary:
    return declared(OWN)


def union(statement: str, first: str) -> set[str]:
    """The labels of the union that starts with ``first`` in a statement."""
    found = re.search(rf"\(\w+:({first}(?:\s*\|\s*\w+)+)", load(statement))
    assert found, f"{statement} names no label union starting with {first}"
    return {label.strip() for label in found.group(1).split("|")}


def schema_labels(file: str, pattern: str) -> set[str]:
    text = (ROOT / "cypher" / "schema" / file).read_text()
    return set(re.findall(pattern, text))


def test_every_label_is_declared_once_by_one_layer() -> None:
    seen: dict[str, str] = {}
    for layer in OWN:
        for label in layer.owns:
            assert label not in seen and label not in CORE_LABELS, (label, layer.name)
            seen[label] = layer.name
        assert set(layer.unsourced) <= set(layer.owns), layer.name
        kinds = {kind.label for kind in layer.vectors}
        embedded = {label for label, needs in layer.owns.items() if "embedding" in needs}
        assert kinds == embedded, (layer.name, kinds ^ embedded)  # vectors as declared
    assert seen["Turn"] == "turns" and seen["EDU"] == "edus"


def test_relationships_join_declared_labels() -> None:
    words = vocabulary()
    for name, ends in words.types.items():
        for a, b in ends:
            assert a in words.labels and b in words.labels, (name, a, b)


def test_the_schema_covers_every_declared_label() -> None:
    labels = set(vocabulary().labels)
    assert schema_labels("constraints.cypher", r"FOR \(n:(\w+)\) REQUIRE n\.id") == labels
    assert schema_labels("range_indexes.cypher",
                         r"FOR \(n:(\w+)\) ON \(n\.space\)") == labels - {"Space"}
    vectors = {kind.label for layer in OWN for kind in layer.vectors}
    assert schema_labels("vector_indexes.cypher", r"FOR \(n:(\w+)\) ON \(n\.embedding\)") \
        == vectors


def test_statements_naming_every_label_of_a_kind_name_the_declared_ones() -> None:
    words = vocabulary()
    assert union("admin/unit", "Space") == set(words.labels) - {"Change"}
    assert union("ingest/forget_derived", "EDU") == set(words.sourced)
    assert union("ingest/forget_conversation", "Session") == {*words.sourced, "Session", "Turn"}
    embedded = {kind.label for layer in OWN for kind in layer.vectors}
    assert union("ingest/set_vectors", "Turn") == embedded
    assert union("ingest/embedded_hashes", "Turn") == embedded
    kinds = set(re.findall(r"WHERE \$kind = '(\w+)'", load("admin/reembed/vector_texts")))
    assert kinds == {kind.label.lower() for layer in OWN for kind in layer.vectors
                     if kind.statement == "admin/reembed/vector_texts"}


def test_the_browser_style_colours_every_declared_label() -> None:
    style = (ROOT / "graphmem" / "data" / "graphmem.grass").read_text()
    assert set(re.findall(r"node\.(\w+)", style)) == set(vocabulary().labels) | NOT_IN_A_SPACE


def test_a_plug_in_layer_declares_its_part_the_same_way() -> None:
    """A plug-in's labels join the vocabulary as graphmem's do: restorable, linked to their
    turns unless it says otherwise, never redefining one of graphmem's."""

    class Notes(Layer):  # type: ignore[type-arg]
        name = "notes"
        owns: ClassVar[Owns] = {"Note": ("text",), "Tag": ("name",), "Turn": ("nothing",)}
        joins: ClassVar[Joins] = {"TAGGED": (("Note", "Tag"),), "NEXT": (("Note", "Note"),)}
        unsourced = ("Tag",)

    words = declared([*OWN, Notes])  # type: ignore[type-abstract]
    assert words.labels["Note"] == ("text",) and words.owner["Note"] == "notes"
    assert words.labels["Turn"] == vocabulary().labels["Turn"]  # graphmem's declaration holds
    assert ("Note", "Turn") in words.types["FROM_TURN"]
    assert ("Tag", "Turn") not in words.types["FROM_TURN"]
    assert words.types["TAGGED"] == {("Note", "Tag")}
    assert words.types["NEXT"] == {("Turn", "Turn")}  # graphmem's NEXT is not widened
