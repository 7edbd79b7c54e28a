"""Back up one space to a file and restore it: every node and relationship of the space, with
every property (embeddings exactly, as base64 float64), in a gzip'd JSON-lines file.

The file's first line is a header (format version, space, embedding dimensions and the
embedder that made the vectors, counts); then one line per node (``k``: its number in the
file, labels, properties) and one per relationship (type, the numbers of its two ends,
properties). A restore checks the whole file before it
writes, refuses labels and relationship types that neither graphmem nor an installed plug-in
layer writes (``Layer.owns``, ``Layer.joins``) and values Neo4j cannot store, and stores
everything in one write transaction: a bad file or a failure changes nothing. A space that
exists is replaced only when asked, in the same transaction.
"""

from __future__ import annotations

import base64
import contextlib
import gzip
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import date
from importlib.metadata import version
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from neo4j.time import Date, DateTime

from graphmem.errors import ConfigurationError, InputError
from graphmem.ids import check_space, space_prefix
from graphmem.models import SpaceFileReport
from graphmem.processes import open_private
from graphmem.store import GraphStore, Tx

if TYPE_CHECKING:
    from graphmem.ingest.layer import Layer

FORMAT = "graphmem-space"
VERSION = 1
BATCH = 1000

# The closed sets a restore may create: each label with the properties its nodes must have
# (besides id and space; "embedding" is a vector of the configured size), each relationship
# type with the labels it may join. The space and its history are the door's own (CORE); every
# other label and relationship is declared by the layer that writes it, graphmem's and a
# plug-in's alike (Layer.owns, Layer.joins, Layer.unsourced; see declared()). A file that
# breaks them would break searches later.
EMBEDDED = ("embedding",)
# what `graphmem reembed` stages beside a vector while it runs: not part of a backup
STAGED = ("embedding_next", "embedded_hash_next")
CORE_LABELS: dict[str, tuple[str, ...]] = {"Space": (), "Change": ("at", "what", "surface")}
CORE_TYPES: dict[str, tuple[tuple[str, str], ...]] = {"CHANGED": (("Space", "Change"),)}


@dataclass(frozen=True)
class Vocabulary:
    """The graph's labels and relationship types as the layers declare them."""

    labels: dict[str, tuple[str, ...]]  # label -> the properties its nodes always have
    types: dict[str, frozenset[tuple[str, str]]]  # type -> the (from, to) labels it joins
    sourced: tuple[str, ...]  # the labels whose nodes link to their turns (FROM_TURN)
    owner: dict[str, str]  # label -> the layer that declares it


def declared(layers: Iterable[type[Layer[Any]]] | None = None) -> Vocabulary:
    """The vocabulary of ``layers`` (every registered layer, plug-ins included, by default)
    with the door's own. A label keeps its first declaration (graphmem's layers come first);
    a relationship type of graphmem's keeps its ends, and one that only plug-ins declare joins
    what each of them says it joins."""
    if layers is None:
        from graphmem.ingest.layers import LAYERS  # the registry loads plug-ins: only when used

        layers = LAYERS.values()
    labels, owner = dict(CORE_LABELS), dict.fromkeys(CORE_LABELS, "")
    types = {name: set(ends) for name, ends in CORE_TYPES.items()}
    sourced: list[str] = []
    closed = set(CORE_TYPES)
    for layer in layers:
        for label, needs in layer.owns.items():
            if label in labels:
                continue
            labels[label], owner[label] = tuple(needs), layer.name
            if label not in layer.unsourced:
                sourced.append(label)
        for name, ends in layer.joins.items():
            if name not in closed:  # graphmem's own types are not widened by a plug-in
                types.setdefault(name, set()).update((a, b) for a, b in ends)
        if layer.__module__.startswith("graphmem."):
            closed.update(layer.joins)
    types["FROM_TURN"] = {(label, "Turn") for label in sourced}
    return Vocabulary(labels, {name: frozenset(ends) for name, ends in types.items()},
                      tuple(sourced), owner)


def restorable() -> tuple[dict[str, tuple[str, ...]], dict[str, frozenset[tuple[str, str]]]]:
    """The labels and relationship types a restore may create: those the registered layers
    declare (graphmem's own and plug-ins'), with the space's own."""
    vocabulary = declared()
    return vocabulary.labels, vocabulary.types


# what a property may hold, as Neo4j stores it: one plain value, or a list of plain values of
# one type (no list in a list, no mixed list)
_PLAIN = (str, bool, int, float, DateTime, Date)


def check_value(value: Any) -> str | None:
    """What is wrong with a decoded property value, or None when Neo4j can store it."""
    if value is None or isinstance(value, _PLAIN):
        return None
    if not isinstance(value, list):
        return f"a {type(value).__name__}, which no property holds"
    if any(isinstance(x, list) for x in value):
        return "a list holding a list"
    if any(x is None or not isinstance(x, _PLAIN) for x in value):
        return "a list holding a value that is not plain"
    kinds = {bool if isinstance(x, bool) else float if isinstance(x, float) else type(x)
             for x in value}
    return f"a list mixing {len(kinds)} types of value" if len(kinds) > 1 else None




# ---------------------------------------------------------------------- values
def encode(value: Any) -> Any:
    """A property value as JSON: float lists as exact base64, temporal values tagged."""
    if isinstance(value, list) and value and all(isinstance(x, float) for x in value):
        return {"$f64": base64.b64encode(np.asarray(value, dtype="<f8").tobytes()).decode()}
    if isinstance(value, DateTime):
        return {"$datetime": value.iso_format()}
    if isinstance(value, Date):
        return {"$date": value.iso_format()}
    if isinstance(value, list):
        return [encode(x) for x in value]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    raise ConfigurationError(f"cannot back up a property of type {type(value).__name__}")


def decode(value: Any) -> Any:
    if isinstance(value, dict):
        if "$f64" in value:
            return np.frombuffer(base64.b64decode(value["$f64"]), dtype="<f8").tolist()
        if "$datetime" in value:
            return DateTime.from_iso_format(value["$datetime"])
        if "$date" in value:
            return Date.from_iso_format(value["$date"])
        raise ValueError(f"unknown tagged value {sorted(value)}")
    if isinstance(value, list):
        return [decode(x) for x in value]
    return value


# ---------------------------------------------------------------------- export
def export_space(store: GraphStore, space: str, path: Path, dimensions: int) -> SpaceFileReport:
    """Write every node and relationship of ``space`` to ``path`` (read in one transaction,
    so the file is one consistent state)."""
    check_space(space)

    def read(tx: Tx) -> tuple[list[dict[str, Any]], list[dict[str, Any]], str | None]:
        return (tx.run("admin/export_nodes", space=space),
                tx.run("admin/export_relationships", space=space),
                tx.run("admin/space_state", space=space, layers=[])[0]["embedder"])

    nodes, relationships, embedder = store.read_tx(read, "admin/export_space")
    if not nodes:
        raise InputError(f"there is no space {space!r}", field="space")
    number = {row["key"]: k for k, row in enumerate(nodes)}
    header = {"format": FORMAT, "version": VERSION, "space": space, "graphmem": version("graphmem"),
              "exported_at": date.today().isoformat(), "dimensions": dimensions,
              "embedder": embedder,
              "nodes": len(nodes), "relationships": len(relationships)}
    partial = path.with_name(path.name + ".part")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        _write_file(partial, header, nodes, relationships, number, space)
        partial.replace(path)  # a file that exists is a whole file
    except OSError as exc:
        with contextlib.suppress(OSError):  # a part written before the failure
            partial.unlink(missing_ok=True)
        raise InputError(f"cannot write the backup there ({exc.strerror or exc})",
                         file=str(path)) from None
    return SpaceFileReport(space, len(nodes), len(relationships), path)


def _write_file(partial: Path, header: dict[str, Any], nodes: list[dict[str, Any]],
                relationships: list[dict[str, Any]], number: dict[str, int],
                space: str) -> None:
    # a backup holds every word of the space: its owner's alone (graphmem.processes)
    with open_private(partial) as raw, gzip.open(raw, "wt", encoding="utf-8") as out:
        out.write(json.dumps(header) + "\n")
        for k, row in enumerate(nodes):
            props = {key: encode(v) for key, v in sorted(row["props"].items())
                     if key not in STAGED}
            out.write(json.dumps({"k": k, "labels": sorted(row["labels"]), "props": props})
                      + "\n")
        for row in relationships:
            if row["to"] not in number:
                raise ConfigurationError(
                    f"space {space!r} has a {row['type']} relationship to a node of another "
                    "space; nothing was exported")
            props = {key: encode(v) for key, v in sorted(row["props"].items())}
            out.write(json.dumps({"type": row["type"], "from": number[row["from"]],
                                  "to": number[row["to"]], "props": props}) + "\n")


# ---------------------------------------------------------------------- import
@dataclass
class SpaceFile:
    header: dict[str, Any]
    nodes: list[dict[str, Any]]
    relationships: list[dict[str, Any]]

    @property
    def space(self) -> str:
        return str(self.header["space"])


def _lines(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    try:
        with gzip.open(path, "rt", encoding="utf-8") as lines:
            for number, line in enumerate(lines, start=1):
                try:
                    yield number, json.loads(line)
                except json.JSONDecodeError as exc:
                    raise InputError(f"not JSON: {exc.msg}", file=str(path),
                                     record=f"line {number}") from exc
    except (OSError, EOFError) as exc:  # not gzip, or cut short
        raise InputError(f"not a whole space file ({exc})", file=str(path)) from exc


def read_space_file(path: Path, dimensions: int) -> SpaceFile:
    """Parse and check a whole space file; InputError names the line of the first problem."""
    if not path.is_file():
        raise InputError("no such file", file=str(path))
    lines = _lines(path)
    first = next(lines, None)
    if first is None or not isinstance(first[1], dict) or first[1].get("format") != FORMAT:
        raise InputError(f"not a graphmem space file (no {FORMAT!r} header)", file=str(path))
    header = first[1]
    if header.get("version") != VERSION:
        raise InputError(f"space file version {header.get('version')} is not {VERSION}",
                         file=str(path), record="line 1")
    check_space(str(header.get("space")))
    if header.get("dimensions") != dimensions:
        raise ConfigurationError(
            f"{path} holds {header.get('dimensions')}-d embeddings but "
            f"GRAPHMEM_EMBEDDING_DIMENSIONS is {dimensions}")
    nodes: list[dict[str, Any]] = []
    relationships: list[dict[str, Any]] = []
    ids: set[str] = set()
    labels, types = restorable()
    for number, row in lines:
        where = {"file": str(path), "record": f"line {number}"}
        try:
            if "labels" in row:
                if row.get("k") != len(nodes):
                    raise InputError("nodes out of order", **where)
                props = properties(row["props"], where)
                check_node(row["labels"], props, header["space"], dimensions, where, labels)
                if props["id"] in ids:
                    raise InputError(f"node id {props['id']!r} appears twice", **where)
                ids.add(props["id"])
                nodes.append({"labels": row["labels"], "props": props})
            elif "type" in row:
                if row["type"] not in types:
                    raise InputError(f"relationship type {row['type']!r} is not graphmem's",
                                     **where)
                if not all(isinstance(row[end], int) and 0 <= row[end] < len(nodes)
                           for end in ("from", "to")):
                    raise InputError("a relationship to a node not listed before it", **where)
                ends = (nodes[row["from"]]["labels"][0], nodes[row["to"]]["labels"][0])
                if ends not in types[row["type"]]:
                    raise InputError(f"a {row['type']} relationship from a {ends[0]} to a "
                                     f"{ends[1]}, which graphmem never writes", **where)
                relationships.append({"type": row["type"], "from": row["from"],
                                      "to": row["to"],
                                      "props": properties(row["props"], where)})
            else:
                raise InputError("neither a node nor a relationship", **where)
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise InputError(f"malformed line ({exc})", **where) from exc
    if sum(node["labels"] == ["Space"] for node in nodes) != 1:
        raise InputError("the file must hold its space's own Space node, once", file=str(path))
    if (len(nodes), len(relationships)) != (header.get("nodes"), header.get("relationships")):
        raise InputError(f"the file is cut short: {len(nodes)} nodes and {len(relationships)} "
                         f"relationships, the header says {header.get('nodes')} and "
                         f"{header.get('relationships')}", file=str(path))
    return SpaceFile(header, nodes, relationships)


def properties(given: Any, where: dict[str, str]) -> dict[str, Any]:
    """A line's properties decoded, each one a value Neo4j can store."""
    props = {key: decode(v) for key, v in given.items()}
    for name, value in props.items():
        wrong = check_value(value)
        if wrong:
            raise InputError(f"property {name!r} holds {wrong}", **where)
    return props


def check_node(labels: Any, props: dict[str, Any], space: str, dimensions: int,
               where: dict[str, str],
               known: dict[str, tuple[str, ...]] | None = None) -> None:
    """One node of a file for ``space``: one label of graphmem's (or of an installed plug-in
    layer, ``known``), the properties that label needs, and an id of that space (a file must
    not plant nodes where another space's ingest would merge onto them)."""
    known = restorable()[0] if known is None else known
    if not isinstance(labels, list) or len(labels) != 1 or labels[0] not in known:
        raise InputError(f"labels {labels!r} are not one of graphmem's nor of an installed "
                         "plug-in layer's", **where)
    label, ident = labels[0], props.get("id")
    if not isinstance(ident, str):
        raise InputError(f"a {label} node without an id", **where)
    if label == "Space":
        if ident != space or not set(props) <= {"id", "forgotten"}:
            raise InputError(f"a Space node {ident!r} that is not the file's space", **where)
        forgotten = props.get("forgotten")
        if forgotten is not None and not (isinstance(forgotten, list) and all(
                isinstance(d, str) for d in forgotten)):
            raise InputError("the Space node's forgotten ids must be a list of strings",
                             **where)
        return
    if props.get("space") != space or not ident.startswith(space_prefix(space)):
        raise InputError(f"a {label} node {ident!r} of space {props.get('space')!r}: every "
                         f"node must belong to the file's space {space!r}", **where)
    for name in known[label]:
        value = props.get(name)
        if value is None:
            raise InputError(f"a {label} node {ident!r} without its {name!r}", **where)
        if name == "embedding" and not (
                isinstance(value, list) and len(value) == dimensions
                and all(isinstance(x, (int, float)) for x in value)):
            size = len(value) if isinstance(value, list) else type(value).__name__
            raise InputError(f"a {label} node {ident!r} whose embedding is {size}, not a "
                             f"vector of {dimensions}", **where)


def import_space(store: GraphStore, data: SpaceFile, path: Path,
                 replace: bool) -> SpaceFileReport:
    """Store a checked space file in one write transaction (replacing the space if asked)."""
    space = data.space

    def work(tx: Tx) -> bool:
        exists = bool(tx.lock["existed"])  # the door's lock says whether it was there
        if exists and not replace:
            raise InputError(f"space {space!r} exists; restore with replace to overwrite it",
                             field="space")
        # what was there, or the Space node the door's lock just made: the backup brings its
        # own (held locked by this transaction until it commits)
        tx.run("admin/clear_space", space=space)
        keys: list[str] = []
        for start in range(0, len(data.nodes), BATCH):
            rows = data.nodes[start:start + BATCH]
            created = tx.run("admin/import_nodes", rows=rows)
            keys += [row["key"] for row in sorted(created, key=lambda row: row["i"])]
        for start in range(0, len(data.relationships), BATCH):
            rows = [{"type": r["type"], "from": keys[r["from"]], "to": keys[r["to"]],
                     "props": r["props"]} for r in data.relationships[start:start + BATCH]]
            tx.run("admin/import_relationships", rows=rows)
        # the Space node came back with the backup: a new revision again (no cache serves the
        # old), and the vectors' embedder as it was
        tx.run("ingest/lock_space", space=space, embedder=None)
        if data.header.get("embedder"):
            tx.run("admin/reembed/stamp_embedder", space=space, embedder=data.header["embedder"])
        return exists

    replaced = store.change(space, "restored from a backup", work, "admin/import_space")
    return SpaceFileReport(space, len(data.nodes), len(data.relationships), path, replaced)
