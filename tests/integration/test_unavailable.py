"""Neo4j that is down, hung or refusing us: one clear line naming the URI and what to check,
a distinct exit code, and a bounded wait. Deleting asks, or refuses when it cannot ask."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator

import pytest
from click.testing import CliRunner

from graphmem.cli import main
from graphmem.client import Memory
from graphmem.config import Settings
from graphmem.errors import DatabaseUnavailable
from graphmem.providers.embedder import HashEmbedder

from helpers import SAMPLE, free_port


@pytest.fixture()
def silent_server() -> Iterator[int]:
    """Accepts connections and never says a word (a hung server)."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    listener.settimeout(0.2)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                held.append(listener.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield int(listener.getsockname()[1])
    stop.set()
    thread.join()
    for conn in held:
        conn.close()
    listener.close()


def cli(*args: str, **env: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args), env=env)
    return result.exit_code, result.output


def test_a_stopped_server_is_one_clear_line_and_exit_4(tmp_path: object) -> None:
    uri = f"bolt://127.0.0.1:{free_port()}"
    began = time.perf_counter()
    code, out = cli("spaces", GRAPHMEM_NEO4J_URI=uri)
    assert code == 4 and time.perf_counter() - began < 10
    assert out.count("\n") == 1 and "Traceback" not in out
    assert f"cannot reach Neo4j at {uri}" in out and "graphmem neo4j start" in out
    memory = Memory(Settings(neo4j_uri=uri), embedder=HashEmbedder())
    with pytest.raises(DatabaseUnavailable, match="GRAPHMEM_NEO4J_URI"):
        memory.search("anything", space="x")
    memory.close()


def test_a_hung_server_fails_within_the_timeout(silent_server: int) -> None:
    uri = f"bolt://127.0.0.1:{silent_server}"
    began = time.perf_counter()
    code, out = cli("search", "anything", "--space", "x", GRAPHMEM_NEO4J_URI=uri,
                    GRAPHMEM_NEO4J_TIMEOUT="1")
    assert code == 4 and "within 1s" in out
    assert time.perf_counter() - began < 8  # about twice the timeout, not minutes


def test_wrong_credentials_name_the_setting(neo4j_server: object, settings: Settings) -> None:
    code, out = cli("spaces", GRAPHMEM_NEO4J_PASSWORD="not-the-password",
                    GRAPHMEM_NEO4J_URI=settings.neo4j_uri)
    assert code == 4 and "GRAPHMEM_NEO4J_PASSWORD" in out and "Traceback" not in out
    time.sleep(0.5)  # stay clear of the server's lock-out after repeated failures


def test_delete_asks_or_refuses(memory: Memory, space: str, settings: Settings) -> None:
    memory.ingest(SAMPLE, space=space, layers="")
    env = {"GRAPHMEM_NEO4J_URI": settings.neo4j_uri}
    code, out = cli("delete", "--space", space, **env)  # the runner's stdin is no terminal
    assert code == 2 and "add --yes" in out
    assert any(row["space"] == space for row in memory.spaces())
    assert cli("delete", "--space", space, "--yes", **env)[0] == 0
    code, out = cli("delete", "--space", space, "--yes", **env)
    assert code == 1 and f"there is no space {space!r}" in out


def test_a_command_says_neo4j_is_away_before_loading_any_model(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """`graphmem search` with Neo4j away answers from the connection alone: no embedder (nor
    spaCy, which the search would load next) is made first."""
    import graphmem.client

    def no_model(*args: object, **kwargs: object) -> None:
        raise AssertionError("a model was loaded before Neo4j was reached")

    monkeypatch.setattr(graphmem.client, "configured_embedder", no_model)
    uri = f"bolt://127.0.0.1:{free_port()}"
    code, out = cli("search", "When did Caroline go?", "--space", "x", GRAPHMEM_NEO4J_URI=uri)
    assert code == 4 and f"cannot reach Neo4j at {uri}" in out, out
