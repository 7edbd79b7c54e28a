"""Many writers adding messages to one conversation at once, as clients of one process and as
processes of their own: every message acknowledged is stored once, positions are distinct and
in order, the NEXT chain follows them, and nothing derived is left orphaned."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from graphmem.client import Memory
from graphmem.config import Settings
from graphmem.providers.embedder import SentenceTransformerEmbedder
from graphmem.store import GraphStore

from helpers import query_rows

TURNS = """
MATCH (:Conversation {space: $space, key: $key})-[:HAS_SESSION]->(s:Session)-[:HAS_TURN]->(t)
OPTIONAL MATCH (t)-[:NEXT]->(n)
RETURN t.text AS text, t.seq AS seq, t.order AS position, s.index AS session,
       n.seq AS next ORDER BY t.seq
"""
ORPHANS = """
MATCH (a:Argument {space: $space}) WHERE NOT EXISTS { MATCH ()-[:HAS_ARGUMENT]->(a) }
RETURN count(a) AS arguments
"""


def check_conversation(store: GraphStore, space: str, key: str, texts: set[str]) -> None:
    rows = query_rows(store, TURNS, space=space, key=key)
    assert sorted(r["text"] for r in rows) == sorted(texts)  # each acknowledged one, once
    assert [r["seq"] for r in rows] == list(range(len(rows)))
    assert [r["next"] for r in rows] == [*range(1, len(rows)), None]  # one chain, in order
    places = [(r["session"], r["position"]) for r in rows]
    assert places == sorted(places) and len(set(places)) == len(places)  # distinct, in order


def test_clients_of_one_process_lose_nothing(settings: Settings, store: GraphStore,
                                            embedder: SentenceTransformerEmbedder,
                                            space: str) -> None:
    live = settings.model_copy(update={"live_derive": "manual", "ingest_layers": ""})

    def writer(n: int) -> list[str]:
        with Memory(live, embedder=embedder) as memory:  # its own driver and lock
            sent = []
            for i in range(4):
                text = f"Writer {n} says note {i}."
                report = memory.add_messages(space, "shared", [{"speaker": f"W{n}",
                                                                "text": text}])
                assert len(report.added) == 1
                sent.append(text)
            return sent

    with ThreadPoolExecutor(max_workers=4) as pool:
        sent = {text for texts in pool.map(writer, range(4)) for text in texts}
    assert len(sent) == 16
    check_conversation(store, space, "shared", sent)


WRITER = textwrap.dedent("""
    import json, sys
    from graphmem.client import Memory
    n, space = int(sys.argv[1]), sys.argv[2]
    sent = []
    with Memory() as memory:
        for i in range(6):
            text = f"Process {n} adopted cat number {i} called Whiskers{n}x{i}."
            ident = f"p{n}-{i}" if i % 2 else None
            report = memory.add_messages(space, "shared", [
                {"speaker": f"P{n}", "text": text, "id": ident}], layers="edus")
            if report.added:
                sent.append(text)
        memory.add_messages(space, f"own-{n}", [{"speaker": f"P{n}", "text": "Mine alone."}],
                            layers="edus")
    print(json.dumps(sent))
""")


def test_processes_lose_nothing_and_leave_no_orphans(settings: Settings, store: GraphStore,
                                                     space: str, neo4j_server: object) -> None:
    env: dict[str, Any] = {k: v for k, v in os.environ.items()
                           if not k.startswith("GRAPHMEM_LLM")}
    env.update(GRAPHMEM_LIVE_DELAY_SECONDS="0.2")
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(n), space], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for n in range(3)]
    sent: set[str] = set()
    for proc in procs:
        out, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err[-3000:]
        sent.update(json.loads(out.strip().splitlines()[-1]))
    assert len(sent) == 18
    with Memory(settings) as memory:
        memory.refresh(space)  # anything a writer left pending
        check_conversation(store, space, "shared", sent)
        for n in range(3):
            check_conversation(store, space, f"own-{n}", {"Mine alone."})
        assert query_rows(store, ORPHANS, space=space) == [{"arguments": 0}]
        pending = query_rows(store, "MATCH (c:Conversation {space: $space}) "
                             "RETURN c.pending_layers AS p", space=space)
        assert all(row["p"] is None for row in pending)
        for n, i in ((0, 5), (1, 0), (2, 3)):  # searchable by the default strategy
            found = memory.search(f"Whiskers{n}x{i}", space=space, budget=40)
            assert f"Whiskers{n}x{i}" in found.context
