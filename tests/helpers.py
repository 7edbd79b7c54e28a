"""Paths and small helpers shared by the tests."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import numpy as np

from graphmem.processes import free_port

TESTS = Path(__file__).parent
DATA = TESTS / "data"
SAMPLE = TESTS.parent / "graphmem" / "data" / "sample_conversation.json"


def start_rest(env: dict[str, str]) -> tuple[subprocess.Popen[bytes], str]:
    """`graphmem serve` in its own process with ``env``, once its health route answers;
    the caller terminates it."""
    import httpx

    port = free_port()
    process = subprocess.Popen([sys.executable, "-m", "graphmem", "serve", "--port", str(port)],
                               env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while True:
        assert process.poll() is None, process.stderr.read().decode()  # type: ignore[union-attr]
        assert time.monotonic() < deadline, "the server did not start"
        try:
            if httpx.get(f"{url}/v1/health").status_code == 200:
                return process, url
        except httpx.TransportError:
            time.sleep(0.5)


@contextmanager
def second_server(settings: Any, folder: Path, **overrides: Any) -> Iterator[Any]:
    """A second local server with its own data, ports and a small heap, stopped afterwards;
    it shares the suite's built jars (read only), so it starts without Maven."""
    from graphmem.neo4j_server.local import LocalNeo4j

    server = LocalNeo4j(settings).sibling(
        folder / "home", neo4j_uri=f"bolt://127.0.0.1:{free_port()}",
        neo4j_http_port=free_port(), neo4j_heap="512m", neo4j_pagecache="64m", **overrides)
    server.start()
    try:
        yield server
    finally:
        server.stop(timeout=30)


def text_held(store: Any, space: str, text: str) -> list[str]:
    """Every node or relationship of ``space`` whose properties hold ``text`` (any case), and
    every fulltext hit for it: where a forgotten word could still be found."""
    low = text.lower()
    found = [f"node {row['labels']}" for row in query_rows(
        store, "MATCH (n) WHERE n.space = $space OR (n:Space AND n.id = $space) "
        "RETURN labels(n) AS labels, properties(n) AS props", space=space)
        if low in json.dumps(row["props"], default=str).lower()]
    found += [f"relationship {row['type']}" for row in query_rows(
        store, "MATCH (n {space: $space})-[r]-() RETURN type(r) AS type, "
        "properties(r) AS props", space=space)
        if low in json.dumps(row["props"], default=str).lower()]
    for index in query_rows(store, "SHOW INDEXES YIELD name, type "
                            "WHERE type = 'FULLTEXT' RETURN name"):
        hits = query_rows(store, "CALL db.index.fulltext.queryNodes($name, $q) "
                          "YIELD node WHERE node.space = $space RETURN node.id AS id",
                          name=index["name"], q=text, space=space)
        found += [f"fulltext {index['name']}: {h['id']}" for h in hits]
    return found


def query_rows(store: Any, query: str, **params: Any) -> list[dict[str, Any]]:
    """A check written in a test itself (not one of graphmem's statements), as dicts."""
    with store.driver.session(database=store.database) as session:
        return [r.data() for r in session.run(query, params)]


class ScriptedServer:
    """Answers each POST with the next scripted (content, finish_reason), or, when
    ``responder`` is set, with what it returns for the request body; records requests."""

    def __init__(self) -> None:
        self.script: list[tuple[str, str]] = []
        self.responder: Callable[[dict[str, Any]], tuple[str, str]] | None = None
        self.delay = 0.0  # seconds to wait before answering (to provoke client timeouts)
        self.requests: list[dict[str, object]] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                outer.requests.append(body)
                time.sleep(outer.delay)
                if outer.responder is not None:
                    content, finish = outer.responder(body)
                else:
                    content, finish = outer.script.pop(0) if outer.script else ("{}", "stop")
                payload = {
                    "id": "x", "object": "chat.completion", "created": 0, "model": body["model"],
                    "choices": [{"index": 0, "finish_reason": finish,
                                 "message": {"role": "assistant", "content": content}}],
                    "usage": {"prompt_tokens": 11, "completion_tokens": 5, "total_tokens": 16},
                }
                data = json.dumps(payload).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()


@dataclass
class ListedCandidates:
    """Candidates given as plain lists, as :func:`graphmem.retrieve.fused.pipeline.select`
    reads them (a search's Candidates or a training Sample)."""

    costs: list[int]
    heads: list[int]
    sessions: list[str]
    shorts: list[int | None]
    quiet: np.ndarray
    before: list[int]
    listing: bool = True
    vectors: np.ndarray | None = None
    notes: list[int] = field(default_factory=list)

    @property
    def rows(self) -> list[int]:
        return list(range(len(self.costs)))


def select_lists(costs: list[int], heads: list[int], sessions: list[str], p: np.ndarray,
                 budget: int, gamma: float, headers: bool = True,
                 shorts: list[int | None] | None = None, floor: int = 0, spread: float = 1.0,
                 quiet: np.ndarray | None = None, before: list[int] | None = None,
                 pairs: int = 0, vectors: np.ndarray | None = None, cover: float = 0.0,
                 similar: float = 0.5, notes: list[int] | None = None
                 ) -> list[tuple[int, bool]]:
    """The pipeline's ``select`` over candidates given as lists and a rule given by its
    parts (``quiet`` None: the floor holds for every candidate)."""
    from graphmem.retrieve.fused.pipeline import PackingRule, select

    found = ListedCandidates(costs, heads, sessions, list(shorts or []),
                             np.ones(len(costs), dtype=bool) if quiet is None else quiet,
                             list(before or []), vectors=vectors, notes=list(notes or []))
    rule = PackingRule(gamma=gamma, floor=floor, spread=spread, pairs=pairs, cover=cover,
                       similar=similar)
    return select(found, p, budget, rule, headers, statements=shorts is not None)


def scripted_memory(memory: Any, server: ScriptedServer, tmp_path: Path) -> Any:
    """A client sharing ``memory``'s store and embedder whose LLM is ``server`` (one attempt
    per item, replies cached under ``tmp_path``)."""
    from graphmem.client import Memory
    from graphmem.providers.llm import OpenAICompatibleLLM

    settings = memory.settings.model_copy(update={
        "home": tmp_path, "llm_base_url": server.url, "llm_model": "scripted",
        "llm_max_attempts": 1})
    return Memory(settings, store=memory.store, embedder=memory.embedder,
                  llm=OpenAICompatibleLLM(settings))


def memory_ids(tool_answer: str) -> list[str]:
    """The memory ids a memory tool's answer lists after its numbered block, in order."""
    listed = str(tool_answer).rsplit("memory ids: ", 1)[1]
    return [i for entry in listed.split("; ") for i in entry.split("] ", 1)[1].split(", ")]
