"""Erasure that reaches the disk: the local server's database written anew from what it holds
now, so that nothing forgotten stays in a file.

A forget removes what was said from the graph at once (no search, index, cache or later backup
serves it), but Neo4j, like most databases, only marks the records free: their bytes stay in
the store files and the index files until reused, and in the transaction logs until those are
rotated and pruned. Community Edition has no online compaction, so :func:`compact` does it with
graphmem's own backup and restore:

1. every space is exported to a file under ``GRAPHMEM_HOME/compact/`` and each file is read
   back whole and checked, while the server runs (nothing is touched if one fails);
2. the server stops, and its databases and transaction logs are deleted (the user store,
   ``data/dbms``, stays: the password does not change);
3. the server starts on empty stores and every space is imported from its file, the counts of
   nodes and relationships checked against the export;
4. the files are deleted.

Should step 3 fail, the files stay where the error says, and ``graphmem import`` restores each
one. A cluster or Aura has its own answer (``docs/deploy.md``).
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from graphmem.config import Settings
from graphmem.neo4j_server.local import LocalNeo4j, Neo4jServerError
from graphmem.spacefile import read_space_file

# what is deleted: every database's store and index files, and every transaction log
ERASED = ("databases", "transactions")


@dataclass
class CompactReport:
    spaces: list[str] = field(default_factory=list)
    nodes: int = 0
    relationships: int = 0
    bytes_before: int = 0
    bytes_after: int = 0
    seconds: float = 0.0

    def summary(self) -> str:
        return (f"{len(self.spaces)} spaces ({self.nodes} nodes, {self.relationships} "
                f"relationships) written anew; the data folder went from "
                f"{self.bytes_before / 2**20:.1f} MB to {self.bytes_after / 2**20:.1f} MB in "
                f"{self.seconds:.0f} s")


def data_bytes(server: LocalNeo4j) -> int:
    return sum(p.stat().st_size for p in (server.home / "data").rglob("*") if p.is_file())


def compact(settings: Settings, say: Callable[[str], None] = lambda _line: None) -> CompactReport:
    """Write the local server's database anew from its spaces (see the module)."""
    from graphmem.client import Memory  # the models load only for the export and import

    server = LocalNeo4j(settings)
    if not server.status().running:
        raise Neo4jServerError("the local Neo4j is not running: start it first "
                               "(`graphmem neo4j start`); compacting reads it")
    began = time.monotonic()
    report = CompactReport(bytes_before=data_bytes(server))
    folder = settings.home / "compact"
    if folder.exists() and any(folder.iterdir()):
        raise Neo4jServerError(f"{folder} holds the files of a compaction that did not "
                               "finish: restore them with `graphmem import`, then delete the "
                               "folder")
    folder.mkdir(parents=True, exist_ok=True)
    files: list[tuple[Path, int, int]] = []
    with Memory(settings) as memory:
        spaces = [row["space"] for row in memory.spaces()]
        for n, space in enumerate(spaces):
            path = folder / f"space-{n:05d}.jsonl.gz"
            done = memory.export_space(space, path)
            read_space_file(path, settings.embedding_dimensions)  # whole and readable
            files.append((path, done.nodes, done.relationships))
            say(f"exported {space!r}: {done.nodes} nodes")
    report.spaces = spaces
    server.stop()
    for name in ERASED:
        shutil.rmtree(server.home / "data" / name, ignore_errors=True)
    say("the old stores and transaction logs are deleted; starting on empty ones")
    server.start()
    with Memory(settings) as memory:
        for path, nodes, relationships in files:
            done = memory.import_space(path)
            if (done.nodes, done.relationships) != (nodes, relationships):
                raise Neo4jServerError(
                    f"{path}: {done.nodes} nodes and {done.relationships} relationships came "
                    f"back of {nodes} and {relationships}; the files stay in {folder}")
            report.nodes += nodes
            report.relationships += relationships
            path.unlink()
    folder.rmdir()
    report.bytes_after = data_bytes(server)
    report.seconds = time.monotonic() - began
    return report
