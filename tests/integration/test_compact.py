"""Erasure that reaches the disk: after a forget the forgotten words are still in the server's
files (Neo4j frees records, it does not overwrite them); after `graphmem neo4j compact` no file
of the server holds them, and every space is as it was, searchable, its forgotten ids still
refused. On a server of its own (other ports, a small heap), not the suite's."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from graphmem.cli import main
from graphmem.client import Memory
from graphmem.config import Settings
from graphmem.neo4j_server.local import LocalNeo4j
from graphmem.providers.embedder import SentenceTransformerEmbedder

from helpers import second_server


@pytest.fixture()
def own_server(settings: Settings, neo4j_server: object, tmp_path: Path) -> Iterator[LocalNeo4j]:
    with second_server(settings, tmp_path) as server:
        yield server


def files_holding(folder: Path, word: str) -> list[str]:
    needle = word.encode()
    return [str(p.relative_to(folder)) for p in folder.rglob("*")
            if p.is_file() and needle in p.read_bytes()]


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

    result = CliRunner().invoke(main, ["neo4j", "compact", "--yes"],
                                env={"GRAPHMEM_HOME": str(settings.home),
                                     "GRAPHMEM_NEO4J_URI": settings.neo4j_uri,
                                     "GRAPHMEM_NEO4J_HTTP_PORT": str(settings.neo4j_http_port),
                                     "GRAPHMEM_NEO4J_HEAP": "512m",
                                     "GRAPHMEM_NEO4J_PAGECACHE": "64m"})
    assert result.exit_code == 0, result.output
    assert "2 spaces" in result.output
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
