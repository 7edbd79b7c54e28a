"""Write the files that name every label of a kind from the layers' declarations:
python docs/generate_vocabulary.py

Each layer declares its labels (``owns``, ``unsourced``) and embedded kinds (``vectors``);
:func:`graphmem.spacefile.declared` gathers them. The Cypher files stay plain text, so Neo4j
Browser runs them and Neo4j 5.26 plans their label unions as index seeks (a label given as a
parameter, ``:$(...)``, is planned as a scan of every node); what they say about the labels is
written here from the declarations, so adding a label to a layer is its declaration and

    python docs/generate_vocabulary.py

which rewrites the label unions (set and read vectors, forget, ``admin/unit``), the per-label
blocks of ``admin/reembed/vector_texts``, the schema's constraints and indexes and the Browser
style. Lines of the schema and style that name no declared label of their kind are dropped;
what else they hold (a session's date index, a relationship's style) is kept as it is.
``tests/unit/test_vocabulary.py`` fails, naming the file, while one is not as made here.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from graphmem.spacefile import Vocabulary, declared

ROOT = Path(__file__).resolve().parents[1]
CYPHER = ROOT / "cypher"
STYLE = ROOT / "graphmem" / "data" / "graphmem.grass"
WIDTH = 96  # a generated union is wrapped before this column
# GDS projections' bookkeeping: a node of no space that no layer writes
OUTSIDE = ("Projection",)


@dataclass(frozen=True)
class Declared:
    """What the files are made from: the vocabulary, and the embedded kinds in order."""

    vocabulary: Vocabulary
    embedded: tuple[Any, ...]  # VectorKind

    @classmethod
    def of(cls, layers: Iterable[Any]) -> Declared:
        layers = list(layers)
        return cls(declared(layers), tuple(kind for layer in layers for kind in layer.vectors))

    @property
    def labels(self) -> list[str]:
        return list(self.vocabulary.labels)

    @property
    def embedded_labels(self) -> list[str]:
        return [kind.label for kind in self.embedded]


def snake(label: str) -> str:
    """``RetrievalUnit`` -> ``retrieval_unit``, ``EDU`` -> ``edu``."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", label).lower()


# statement -> the labels of its one union
UNIONS: dict[str, Callable[[Declared], list[str]]] = {
    "ingest/set_vectors": lambda d: d.embedded_labels,
    "ingest/embedded_hashes": lambda d: d.embedded_labels,
    "ingest/forget_derived": lambda d: list(d.vocabulary.sourced),
    "ingest/forget_conversation": lambda d: ["Session", "Turn", *d.vocabulary.sourced],
    "admin/unit": lambda d: [label for label in d.labels if label != "Change"],
}
_UNION = re.compile(r"\((\w+):(\w+(?:\s*\|\s*\w+)+)")


def union(text: str, labels: list[str]) -> str:
    """``text`` with its one label union made of ``labels``, wrapped as the file wraps it:
    a continued line starts with ``|`` under the variable."""
    found = list(_UNION.finditer(text))
    if len(found) != 1:
        raise ValueError(f"expected one label union, found {len(found)}")
    match = found[0]
    line_start = text.rfind("\n", 0, match.start()) + 1
    column = match.start(2) - line_start
    indent = " " * (match.start(1) - line_start)
    lines, current = [], labels[0]
    for label in labels[1:]:
        if column + len(current) + 1 + len(label) > WIDTH:
            lines.append(current)
            current, column = "|" + label, len(indent)
        else:
            current += "|" + label
    lines.append(current)
    return text[:match.start(2)] + ("\n" + indent).join(lines) + text[match.end(2):]


def vector_texts(text: str, made: Declared) -> str:
    """``admin/reembed/vector_texts`` with one block per embedded kind it serves."""
    blocks = [f"  WITH 1 AS one WHERE $kind = '{kind.label.lower()}'\n"
              f"  MATCH (n:{kind.label} {{space: $space}}) WHERE n.embedding IS NOT NULL\n"
              f"  RETURN n, {kind.fields} AS fields\n"
              for kind in made.embedded if kind.statement == "admin/reembed/vector_texts"]
    head, rest = text.split("CALL () {\n", 1)
    _, tail = rest.split("\n}\n", 1)
    return head + "CALL () {\n" + "  UNION ALL\n".join(blocks) + "}\n" + tail


def _sync(text: str, pattern: str, wanted: dict[str, str], keep: Iterable[str] = ()) -> str:
    """``text`` with its statements matching ``pattern`` (``;``-ended, the label its group 1)
    for exactly the ``wanted`` labels: one naming another label goes, one missing is added
    at the end (the others stay as written)."""
    kept = set(keep)
    out: list[str] = []
    seen: set[str] = set()
    for statement in re.split(r"(?<=;)\n", text.rstrip("\n")):
        found = re.search(pattern, statement)
        if found and found.group(1) not in wanted and found.group(1) not in kept:
            continue
        if found:
            seen.add(found.group(1))
        out.append(statement)
    out.extend(line for label, line in wanted.items() if label not in seen)
    return "\n".join(out) + "\n"


def constraints(text: str, made: Declared) -> str:
    return _sync(text, r"FOR \(n:(\w+)\) REQUIRE n\.id IS UNIQUE", {
        label: f"CREATE CONSTRAINT {snake(label)}_id IF NOT EXISTS FOR (n:{label}) "
               "REQUIRE n.id IS UNIQUE;" for label in made.labels}, OUTSIDE)


def space_indexes(text: str, made: Declared) -> str:
    return _sync(text, r"FOR \(n:(\w+)\) ON \(n\.space\)", {
        label: f"CREATE INDEX {snake(label)}_space IF NOT EXISTS FOR (n:{label}) "
               "ON (n.space);" for label in made.labels if label != "Space"})


def vector_indexes(text: str, made: Declared) -> str:
    options = ("OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, "
               "`vector.similarity_function`: 'cosine'}};")
    return _sync(text, r"FOR \(n:(\w+)\) ON \(n\.embedding\)", {
        label: f"CREATE VECTOR INDEX {snake(label)}_embedding IF NOT EXISTS\n"
               f"FOR (n:{label}) ON (n.embedding)\n{options}"
        for label in made.embedded_labels})


def style(text: str, made: Declared) -> str:
    """The Browser style with a block per label (a new one grey, captioned by its id)."""
    blocks = re.split(r"(?<=\n}\n)", text)
    wanted = set(made.labels) | set(OUTSIDE)
    out, seen = [], set()
    for block in blocks:
        found = re.match(r"node\.(\w+) \{", block)
        if found and found.group(1) not in wanted:
            continue
        if found:
            seen.add(found.group(1))
        out.append(block)
    out.extend(f"node.{label} {{\n  color: #C990C0;\n  border-color: #B261A5;\n"
               f"  caption: '{{id}}';\n}}\n" for label in made.labels if label not in seen)
    return "".join(out)


def files(made: Declared) -> dict[Path, Callable[[str], str]]:
    """Each generated file and how it is made from what it holds now."""
    def unite(labels: list[str]) -> Callable[[str], str]:
        return lambda text: union(text, labels)

    made_by: dict[Path, Callable[[str], str]] = {
        CYPHER / f"{name}.cypher": unite(labels(made)) for name, labels in UNIONS.items()}
    made_by[CYPHER / "admin" / "reembed" / "vector_texts.cypher"] = \
        lambda text: vector_texts(text, made)
    made_by[CYPHER / "schema" / "constraints.cypher"] = lambda text: constraints(text, made)
    made_by[CYPHER / "schema" / "range_indexes.cypher"] = lambda text: space_indexes(text, made)
    made_by[CYPHER / "schema" / "vector_indexes.cypher"] = \
        lambda text: vector_indexes(text, made)
    made_by[STYLE] = lambda text: style(text, made)
    return made_by


def graphmem_layers() -> list[Any]:
    """graphmem's own layers (a plug-in's statements live in its own package)."""
    from graphmem.ingest.layers import LAYERS

    return [layer for layer in LAYERS.values() if layer.__module__.startswith("graphmem.")]


def stale(made: Declared | None = None) -> list[Path]:
    """The generated files that are not as the declarations make them."""
    made = made or Declared.of(graphmem_layers())
    return [path for path, make in files(made).items()
            if make(path.read_text(encoding="utf-8")) != path.read_text(encoding="utf-8")]


def write(made: Declared | None = None) -> list[Path]:
    """Make every generated file anew; the ones that changed."""
    made = made or Declared.of(graphmem_layers())
    changed = []
    for path, make in files(made).items():
        before = path.read_text(encoding="utf-8")
        after = make(before)
        if after != before:
            path.write_text(after, encoding="utf-8")
            changed.append(path)
    return changed


if __name__ == "__main__":
    written = write()
    for path in written:
        print(f"wrote {path.relative_to(ROOT)}")
    print(f"{len(written)} of {len(files(Declared.of(graphmem_layers())))} files changed")
    sys.exit(0)
