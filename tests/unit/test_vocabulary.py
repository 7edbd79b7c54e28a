"""The graph's vocabulary is declared by the layers that write it (``Layer.owns``, ``joins``,
``unsourced``, ``vectors``); every Cypher file and list that names all the labels of a kind
is held to those declarations here, so a label added to a layer fails a test naming each
place it must also go, and one left out of a layer's declaration fails too."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from typing import Any, ClassVar

from graphmem.cypher import load
from graphmem.ingest.layer import Joins, Layer, Owns, VectorKind
from graphmem.ingest.layers import LAYERS
from graphmem.spacefile import CORE_LABELS, Vocabulary, declared

ROOT = Path(__file__).resolve().parents[2]
OWN = [layer for layer in LAYERS.values() if layer.__module__.startswith("graphmem.")]
# GDS projections' bookkeeping: a node of no space, which no layer writes
NOT_IN_A_SPACE = {"Projection"}


def generator() -> Any:
    spec = importlib.util.spec_from_file_location("generate_vocabulary",
                                                  ROOT / "docs" / "generate_vocabulary.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks its module up there
    spec.loader.exec_module(module)
    return module


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


def test_the_files_naming_every_label_are_made_from_the_declarations() -> None:
    """`python docs/generate_vocabulary.py` has been run since a declaration changed."""
    assert generator().stale() == [], "run: python docs/generate_vocabulary.py"


def test_a_new_label_is_its_declaration_and_one_command() -> None:
    """A layer declaring an embedded label, made into every file that names the labels of its
    kind; made again, nothing moves; a label no longer declared leaves them all."""

    class Notes(Layer):  # type: ignore[type-arg]
        name = "notes"
        owns: ClassVar[Owns] = {"FieldNote": ("text",)}
        vectors = (VectorKind("FieldNote", fields="{text: n.body}"),)

    made_of = generator()
    declared_by, files = made_of.Declared.of, made_of.files
    made = declared_by([*OWN, Notes])
    out = {path.relative_to(ROOT).as_posix(): make(path.read_text(encoding="utf-8"))
           for path, make in files(made).items()}
    for name, first in (("ingest/set_vectors", "Turn"), ("ingest/embedded_hashes", "Turn"),
                        ("ingest/forget_derived", "EDU"),
                        ("ingest/forget_conversation", "Session"), ("admin/unit", "Space")):
        found = re.search(rf"\(\w+:({first}(?:\s*\|\s*\w+)+)", out[f"cypher/{name}.cypher"])
        assert found and "FieldNote" in {x.strip() for x in found.group(1).split("|")}, name
    block = ("MATCH (n:FieldNote {space: $space}) WHERE n.embedding IS NOT NULL\n"
             "  RETURN n, {text: n.body} AS fields")
    assert block in out["cypher/admin/reembed/vector_texts.cypher"]
    assert "CREATE CONSTRAINT field_note_id IF NOT EXISTS FOR (n:FieldNote) REQUIRE n.id IS " \
        "UNIQUE;" in out["cypher/schema/constraints.cypher"]
    assert "CREATE INDEX field_note_space IF NOT EXISTS FOR (n:FieldNote) ON (n.space);" \
        in out["cypher/schema/range_indexes.cypher"]
    assert "CREATE VECTOR INDEX field_note_embedding IF NOT EXISTS\nFOR (n:FieldNote)" \
        in out["cypher/schema/vector_indexes.cypher"]
    assert "node.FieldNote {" in out["graphmem/data/graphmem.grass"]
    for path, make in files(made).items():  # made again, the same
        text = out[path.relative_to(ROOT).as_posix()]
        assert make(text) == text, path
    without = files(declared_by(OWN))
    for path, make in without.items():  # and gone with its declaration
        back = make(out[path.relative_to(ROOT).as_posix()])
        assert "FieldNote" not in back and "field_note" not in back, path
        assert back == path.read_text(encoding="utf-8"), path
