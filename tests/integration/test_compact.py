"""Erasure that reaches the disk: after a forget the forgotten words are still in the server's
files (Neo4j frees records, it does not overwrite them); after `graphmem neo4j compact` no file
of the server holds them, and every space is as it was, searchable, its forgotten ids still
refused. A client writing all along loses nothing it was told was stored; what is not
graphmem's is refused, not erased; a space that cannot be restored stops no other. No other
account can read the files. On a server of its own (other ports, a small heap), not the
suite's."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from graphmem.cli import main
from graphmem.client import Memory
from graphmem.config import Settings
from graphmem.neo4j_server.local import LocalNeo4j
from graphmem.providers.embedder import SentenceTransformerEmbedder

from helpers import query_rows, second_server


@pytest.fixture()
def own_server(settings: Settings, neo4j_server: object, tmp_path: Path) -> Iterator[LocalNeo4j]:
    with second_server(settings, tmp_path) as server:
        yield server


def files_holding(folder: Path, word: str) -> list[str]:
    needle = word.encode()
    return [str(p.relative_to(folder)) for p in folder.rglob("*")
            if p.is_file() and needle in p.read_bytes()]


def compact_env(settings: Settings) -> dict[str, str]:
    return {"GRAPHMEM_HOME": str(settings.home), "GRAPHMEM_NEO4J_URI": settings.neo4j_uri,
            "GRAPHMEM_NEO4J_HTTP_PORT": str(settings.neo4j_http_port),
            "GRAPHMEM_NEO4J_HEAP": "512m", "GRAPHMEM_NEO4J_PAGECACHE": "64m"}


class Writer(threading.Thread):
    """A client that adds one message every 0.3 s and notes which adds were acknowledged."""

    def __init__(self, settings: Settings, embedder: SentenceTransformerEmbedder) -> None:
        super().__init__(daemon=True)
        self.memory = Memory(settings.model_copy(update={"neo4j_timeout": 2.0,
                                                         "live_derive": "manual"}),
                             embedder=embedder)
        self.done = threading.Event()
        self.acknowledged: list[str] = []
        self.refused = 0

    def run(self) -> None:
        n = 0
        while not self.done.is_set() and n < 2000:
            n += 1
            try:
                self.memory.add_messages("writer", "chat", [
                    {"speaker": "Wu", "text": f"Note number {n} about the garden.",
                     "id": f"w{n}"}])
                self.acknowledged.append(f"w{n}")
            except Exception:  # the server is away or private: a clean refusal
                self.refused += 1
            time.sleep(0.3)


def unreadable_by_others(path: Path) -> bool:
    """Whether an unprivileged account is refused ``path``: tried for real as nobody where
    this runs as root, otherwise read off the modes of it and its folders."""
    if os.geteuid() == 0 and shutil.which("setpriv"):
        tried = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                                "cat", str(path)], capture_output=True, check=False)
        return tried.returncode != 0 and b"denied" in tried.stderr
    return not path.stat().st_mode & 0o077


def test_compact_leaves_no_forgotten_word_in_any_file(
        own_server: LocalNeo4j, embedder: SentenceTransformerEmbedder) -> None:
    secret = f"zebra{uuid.uuid4().hex[:10]}"
    settings = own_server.settings
    with Memory(settings, embedder=embedder) as memory:
        memory.add_messages("alice", "chat", [
            {"speaker": "Ana", "text": "We adopted a greyhound called Pepper.", "id": "m1"},
            {"speaker": "Ana", "text": f"My bank PIN word is {secret}.", "id": "m2"}])
        memory.add_messages("bob", "chat", [
            {"speaker": "Bo", "text": "I run on Sundays by the river.", "id": "b1"}])
        memory.flush()
        memory.forget("alice", "chat", turns=["m2"])
    data = own_server.home / "data"
    assert files_holding(data, secret)  # forgotten from the graph, not yet from the disk

    writer = Writer(settings, embedder)
    writer.start()
    while len(writer.acknowledged) < 3:
        time.sleep(0.1)
    during: list[Path] = []  # the compaction's export files, seen while it runs
    seen = threading.Event()

    def watch() -> None:
        while not seen.is_set():
            during.extend(p for p in (settings.home / "compact").glob("*.gz") if p not in during)
            time.sleep(0.05)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    before = len(writer.acknowledged)
    result = CliRunner().invoke(main, ["neo4j", "compact", "--yes"], env=compact_env(settings))
    seen.set()
    at_end, deadline = len(writer.acknowledged), time.monotonic() + 60
    while len(writer.acknowledged) == at_end and time.monotonic() < deadline:
        time.sleep(0.2)  # the writer finds the server back (its pool reconnects first)
    writer.done.set()
    writer.join(30)
    writer.memory.close()
    assert result.exit_code == 0, result.output
    assert writer.refused > 0  # it was kept out while the compaction ran...
    assert len(writer.acknowledged) > before  # ...and wrote again once it ended
    with Memory(settings, embedder=embedder) as memory:
        stored = [m.id for m in memory.messages("writer", "chat").messages]
    assert stored == writer.acknowledged  # every acknowledged add kept, none stored twice
    assert during  # the exports existed while it ran, and no other account could read them
    assert all(not p.exists() or unreadable_by_others(p) for p in during)
    assert "3 spaces" in result.output  # alice, bob and the writer's
    assert files_holding(data, secret) == []
    assert not (settings.home / "compact").exists()  # the exports are gone too

    with Memory(settings, embedder=embedder) as memory:
        assert [m.text for m in memory.messages("alice", "chat").messages] == [
            "We adopted a greyhound called Pepper."]
        assert "Pepper" in memory.search("What dog did Ana adopt?", space="alice").context
        assert "Sundays" in memory.search("When does Bo run?", space="bob").context
        again = memory.add_messages("alice", "chat", [
            {"speaker": "Ana", "text": f"My bank PIN word is {secret}.", "id": "m2"}])
        assert again.forgotten == ["m2"]  # still refused after the rewrite


def test_compact_refuses_what_is_not_graphmems_and_goes_on_past_a_failed_space(
        own_server: LocalNeo4j, embedder: SentenceTransformerEmbedder,
        monkeypatch: pytest.MonkeyPatch) -> None:
    settings = own_server.settings
    with Memory(settings, embedder=embedder) as memory:
        for space in ("first", "second"):
            memory.add_messages(space, "chat", [
                {"speaker": "Ana", "text": f"The {space} space remembers a red kite.",
                 "id": "m1"}])
        query_rows(memory.store, "CREATE (:Note {text: 'mine, not graphmem'})")
        query_rows(memory.store, "CREATE INDEX my_own_index IF NOT EXISTS FOR (n:Note) "
                                 "ON (n.text)")
    refused = CliRunner().invoke(main, ["neo4j", "compact", "--yes"],
                                 env=compact_env(settings))
    assert refused.exit_code != 0
    assert "1 node(s) labelled Note in no space" in refused.output
    assert "'my_own_index'" in refused.output and "nothing was changed" in refused.output
    with Memory(settings, embedder=embedder) as memory:  # untouched, the server still up
        assert query_rows(memory.store, "MATCH (n:Note) RETURN n.text AS t") == [
            {"t": "mine, not graphmem"}]
        query_rows(memory.store, "DROP INDEX my_own_index")
        query_rows(memory.store, "MATCH (n:Note) DELETE n")

    real = Memory.import_space

    def failing(self: Memory, path: Any, **kwargs: Any) -> Any:
        if '"space": "first"' in _header(Path(path)):
            raise RuntimeError("the disk said no")
        return real(self, path, **kwargs)

    monkeypatch.setattr(Memory, "import_space", failing)
    result = CliRunner().invoke(main, ["neo4j", "compact", "--yes"], env=compact_env(settings))
    monkeypatch.undo()
    assert result.exit_code != 0
    assert "1 of 2 spaces were written anew" in result.output
    assert "'first' (the disk said no): graphmem import" in result.output
    [left] = list((settings.home / "compact").glob("*.gz"))
    assert unreadable_by_others(left) and not (settings.home / "compact").stat().st_mode & 0o077
    with Memory(settings, embedder=embedder) as memory:  # the other space came back, served
        assert [m.text for m in memory.messages("second", "chat").messages] == [
            "The second space remembers a red kite."]
        assert "first" not in [row["space"] for row in memory.spaces()]
        memory.import_space(left)  # what the error says restores the rest
        assert [m.id for m in memory.messages("first", "chat").messages] == ["m1"]


def _header(path: Path) -> str:
    import gzip

    with gzip.open(path, "rt") as rows:
        return rows.readline()


def test_the_servers_files_are_the_owners_alone(own_server: LocalNeo4j) -> None:
    home = own_server.home
    for folder in (home, home / "data", home / "logs"):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700, folder
    stores = [p for p in (home / "data").rglob("*") if p.is_file()]
    assert stores and all(not p.stat().st_mode & 0o077 for p in stores), [
        (str(p), oct(p.stat().st_mode)) for p in stores if p.stat().st_mode & 0o077][:5]
    logs = list((home / "data" / "transactions").rglob("neostore.transaction.db.*"))
    assert logs and unreadable_by_others(logs[0])
