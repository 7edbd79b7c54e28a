"""Erasure that reaches the disk: the local server's database written anew from what it holds
now, so that nothing forgotten stays in a file.

A forget removes what was said from the graph at once (no search, index, cache or later backup
serves it), but Neo4j, like most databases, only marks the records free: their bytes stay in
the store files and the index files until reused, and in the transaction logs until those are
rotated and pruned. Community Edition has no online compaction, so :func:`compact` does it with
graphmem's own backup and restore, with every other client kept out from start to end:

0. it refuses, touching nothing, while the database holds what a backup of every space would
   not carry over: a node of no space, an index or constraint that is not graphmem's;
1. it takes the compaction lock (no other process starts or stops the server meanwhile), stops
   the server and starts it again on a private port no client knows, with no HTTP: a client
   gets "unavailable" until the end, and nothing it is told was stored can be lost;
2. every space is exported to a file under ``GRAPHMEM_HOME/compact/`` (0600, in a 0700
   folder) and each file is read back whole and checked (should one fail, the stores are not
   touched and the server comes back as it was);
3. the server stops, and its databases and transaction logs are deleted (the user store,
   ``data/dbms``, stays: the password does not change);
4. it starts again on the private port and every space is imported from its file, the counts
   of nodes and relationships checked against the export; a space that fails does not stop the
   others, and its file stays;
5. the server comes back on its own ports, and the error names each space not restored and
   its file (``graphmem import FILE`` restores it).

A cluster or Aura has its own answer (``docs/deploy.md``).
"""

from __future__ import annotations

import re
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from graphmem import cypher
from graphmem.config import Settings
from graphmem.neo4j_server.local import LocalNeo4j, Neo4jServerError
from graphmem.processes import private_folder
from graphmem.spacefile import read_space_file

if TYPE_CHECKING:
    from graphmem.client import Memory

# what is deleted: every database's store and index files, and every transaction log
ERASED = ("databases", "transactions")
_CREATED = re.compile(r"\bCREATE\s+(?:\w+\s+)*?(?:INDEX|CONSTRAINT)\s+`?(\w+)`?", re.IGNORECASE)


@dataclass
class CompactReport:
    spaces: list[str] = field(default_factory=list)
    nodes: int = 0
    relationships: int = 0
    bytes_before: int = 0
    bytes_after: int = 0
    seconds: float = 0.0
    # space -> (its file, why it was not restored)
    failed: dict[str, tuple[Path, str]] = field(default_factory=dict)

    def summary(self) -> str:
        return (f"{len(self.spaces)} spaces ({self.nodes} nodes, {self.relationships} "
                f"relationships) written anew; the data folder went from "
                f"{self.bytes_before / 2**20:.1f} MB to {self.bytes_after / 2**20:.1f} MB in "
                f"{self.seconds:.0f} s")


def data_bytes(server: LocalNeo4j) -> int:
    return sum(p.stat().st_size for p in (server.home / "data").rglob("*") if p.is_file())


def graphmem_schema_names() -> set[str]:
    """The names of every index and constraint graphmem's schema files (a plug-in's included)
    create."""
    return {match.group(1) for name in cypher.names() if name.startswith("schema/")
            for statement in cypher.statements(name) for match in _CREATED.finditer(statement)}


def foreign_content(memory: Memory) -> list[str]:
    """What the database holds that no space's backup carries: each a line to show."""
    found = [f"{row['nodes']} node(s) labelled {':'.join(row['labels']) or '(none)'} in no space"
             for row in memory.store.read("admin/foreign_nodes")]
    ours = graphmem_schema_names()
    found += [f"the {row['type'].lower()} index {row['name']!r}" for row in
              memory.store.read("admin/schema_objects")
              if row["name"] not in ours and row["type"] != "LOOKUP"]
    return found


def compact(settings: Settings, say: Callable[[str], None] = lambda _line: None) -> CompactReport:
    """Write the local server's database anew from its spaces (see the module)."""
    from graphmem.client import Memory  # the models load only for the export and import

    server = LocalNeo4j(settings)
    if not server.status().running:
        raise Neo4jServerError("the local Neo4j is not running: start it first "
                               "(`graphmem neo4j start`); compacting reads it")
    folder = settings.home / "compact"
    if folder.exists() and any(folder.iterdir()):
        raise Neo4jServerError(f"{folder} holds the files of a compaction that did not "
                               "finish: restore them with `graphmem import`, then delete the "
                               "folder")
    with Memory(settings) as memory:
        foreign = foreign_content(memory)
    if foreign:
        raise Neo4jServerError(
            "nothing was changed: compacting writes the database anew from graphmem's spaces "
            "and would erase what is not in one: " + "; ".join(foreign) + ". Move or drop "
            "them first (docs/deploy.md, 'Erasure that reaches the disk')")
    began = time.monotonic()
    report = CompactReport(bytes_before=data_bytes(server))
    with server.compacting():
        private = server.private_twin()
        say("the server stops; until the compaction ends it answers only on a private port, "
            "so no client reads or writes meanwhile")
        server.stop()
        try:
            _rewrite(private, folder, report, say)
        finally:
            private.stop()
            server.start()
    report.bytes_after = data_bytes(server)
    report.seconds = time.monotonic() - began
    if report.failed:
        lines = "; ".join(f"{space!r} ({why}): graphmem import {path}"
                          for space, (path, why) in report.failed.items())
        raise Neo4jServerError(
            f"{len(report.spaces) - len(report.failed)} of {len(report.spaces)} spaces were "
            f"written anew; these were not restored, their files stay: {lines}")
    return report


def _rewrite(private: LocalNeo4j, folder: Path, report: CompactReport,
             say: Callable[[str], None]) -> None:
    from graphmem.client import Memory

    settings = private.settings
    private.start()
    private_folder(folder)
    files: list[tuple[str, Path, int, int]] = []
    try:
        with Memory(settings) as memory:
            report.spaces = [row["space"] for row in memory.spaces()]
            for n, space in enumerate(report.spaces):
                path = folder / f"space-{n:05d}.jsonl.gz"
                done = memory.export_space(space, path)
                read_space_file(path, settings.embedding_dimensions)  # whole and readable
                files.append((space, path, done.nodes, done.relationships))
                say(f"exported {space!r}: {done.nodes} nodes")
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)  # the stores are untouched: no file is needed
        raise
    private.stop()
    for name in ERASED:
        shutil.rmtree(private.home / "data" / name, ignore_errors=True)
    say("the old stores and transaction logs are deleted; starting on empty ones")
    private.start()
    try:
        with Memory(settings) as memory:
            for space, path, nodes, relationships in files:
                why = _restore(memory, path, nodes, relationships)
                if why:
                    report.failed[space] = (path, why)
                    say(f"NOT restored {space!r}: {why}; its file stays: {path}")
                    continue
                report.nodes += nodes
                report.relationships += relationships
                path.unlink()
    except Exception as exc:  # the database could not be reached or set up at all
        for space, path, _, _ in files:
            if path.exists():
                report.failed.setdefault(space, (path, f"not imported: {exc}"))
    if not report.failed:
        folder.rmdir()


def _restore(memory: Memory, path: Path, nodes: int, relationships: int) -> str:
    """Import one file; the reason it failed, or '' when the space is back whole."""
    try:
        done = memory.import_space(path)
    except Exception as exc:  # a bad file, a refused value: the other spaces go on
        return str(exc)
    if (done.nodes, done.relationships) != (nodes, relationships):
        return (f"{done.nodes} nodes and {done.relationships} relationships came back of "
                f"{nodes} and {relationships}")
    return ""
