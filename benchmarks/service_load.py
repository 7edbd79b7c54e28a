"""Writers, readers and forgetters at once through REST: a `graphmem serve` of its own, N
writer clients adding messages one per request (half to their own conversation, half to one
conversation all of them share) while M reader clients search and F forgetter clients forget
messages the writers had acknowledged, LLM-free.

    python benchmarks/service_load.py [--writers 4] [--messages 20] [--readers 2]
        [--forgetters 2] [--seconds 600] [--spaces 1] [--rate R] [--out load.json]

With ``--spaces N`` the clients are spread over N spaces (client k of each kind works in
space k mod N; the shared conversation is one per space).

With ``--rate R`` each writer sends R messages a second on a schedule, however fast the server
answers, so that two versions of the server meet the same writes (an add is timed from when it
was due: waiting behind a slow one counts). Without it, each writer sends its next message as
soon as the last is answered, so a faster add brings more adds.

With ``--seconds`` the writers write until that time is up (``--messages`` is then a bound);
every forget waits a second after the last. A forgotten message must be gone afterwards, and
every other acknowledged one present.

Reports throughput, p50/p95 per kind of request, errors, the derivation backlog over time (from
`/metrics`), the share of turns the derived layers cover when the writes stop and once the
worker is idle (or the wait gave up), and the messages acknowledged but not stored: it must be
0. Traffic goes to the loopback only; every loop is bounded in count and time.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import httpx
from common import ROOT, make_parser, publish

from graphmem.client import Memory
from graphmem.eval.metrics import percentile

TOKEN = "service-load-token-" + uuid.uuid4().hex[:8]


def backlog(url: str) -> float:
    for line in httpx.get(f"{url}/metrics", timeout=10).text.splitlines():
        if line.startswith("graphmem_derivation_backlog "):
            return float(line.split()[1])
    return float("nan")


COVERED = """
MATCH (t:Turn {space: $space})
RETURN t.conversation_id ENDS WITH '/shared' AS shared, count(t) AS turns,
       count(CASE WHEN EXISTS { (t)<-[:FROM_TURN]-(d) WHERE NOT d:Turn } THEN 1 END) AS derived
"""


def derived_share(spaces: list[str]) -> dict[str, float]:
    """The share of the turns, in %, that some derived layer already covers (a node linked to
    the turn by ``FROM_TURN``): the shared conversation's and the writers' own ones."""
    totals = {"shared": [0, 0], "own": [0, 0]}
    with Memory() as memory, memory.store.driver.session(
            database=memory.store.database) as session:
        for space in spaces:
            for row in session.run(COVERED, space=space):
                total = totals["shared" if row["shared"] else "own"]
                total[0] += row["turns"]
                total[1] += row["derived"]
    return {kind: round(100 * derived / max(turns, 1), 1)
            for kind, (turns, derived) in totals.items()}


def every_message(memory: Memory, space: str, conversation: str) -> list[str | None]:
    """The ids of every message the conversation holds, page after page."""
    ids: list[str | None] = []
    cursor = None
    for _ in range(100_000):  # bounded: a page is never empty while a cursor follows
        page = memory.messages(space, conversation, limit=500, cursor=cursor)
        ids += [m.id for m in page.messages]
        cursor = page.next_cursor
        if cursor is None:
            break
    return ids


def main() -> None:
    parser = make_parser(__doc__)
    parser.add_argument("--writers", type=int, default=4)
    parser.add_argument("--messages", type=int, default=20, help="per writer")
    parser.add_argument("--readers", type=int, default=2)
    parser.add_argument("--forgetters", type=int, default=0)
    parser.add_argument("--seconds", type=float, default=None,
                        help="write for this long (the messages per writer bound it too)")
    parser.add_argument("--spaces", type=int, default=1,
                        help="spaces the clients are spread over")
    parser.add_argument("--rate", type=float, default=None,
                        help="messages per second each writer sends, on a schedule (an add's "
                        "time counts from when it was due); default: the next as soon as the "
                        "last is answered")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    run = uuid.uuid4().hex[:6]
    spaces = [f"bench-load-{run}-{k}" for k in range(max(1, args.spaces))]
    port = 18000 + os.getpid() % 1000
    url = f"http://127.0.0.1:{port}"
    env = {**os.environ, "GRAPHMEM_REST_TOKENS": json.dumps({TOKEN: spaces})}
    server = subprocess.Popen([sys.executable, "-m", "graphmem", "serve", "--port", str(port)],
                              env=env, cwd=ROOT, stdout=subprocess.DEVNULL)
    headers = {"Authorization": f"Bearer {TOKEN}"}
    took: dict[str, list[float]] = {"add": [], "search": [], "forget": []}
    errors: list[str] = []
    acked: list[tuple[str, str, str]] = []  # (space, conversation, message id)
    forgotten: set[tuple[str, str, str]] = set()
    started = [time.perf_counter()]  # when the clients start (set again then)
    lock = threading.Lock()
    writing = threading.Event()
    try:
        deadline = time.monotonic() + 180
        while True:  # the server loads its models, then answers
            try:
                if httpx.get(f"{url}/v1/health", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if server.poll() is not None or time.monotonic() > deadline:
                raise SystemExit("the server did not start")
            time.sleep(0.5)

        def call(client: httpx.Client, kind: str, method: str, path: str,
                 **options: Any) -> httpx.Response:
            """One request; a connection reset or timeout is counted as an error of its kind
            (a status the client never got)."""
            try:
                return client.request(method, path, **options)
            except httpx.TransportError as exc:
                return httpx.Response(599, text=type(exc).__name__)

        def write(n: int) -> None:
            space = spaces[n % len(spaces)]
            with httpx.Client(base_url=url, headers=headers, timeout=120) as client:
                for i in range(args.messages):
                    if args.seconds is not None and time.perf_counter() - started[0] > args.seconds:
                        return
                    conversation = "shared" if i % 2 else f"own-{n}"
                    ident = f"w{n}-{i}"
                    began = time.perf_counter()
                    if args.rate:  # due on the schedule, whether or not the last add is done
                        due = started[0] + i / args.rate
                        time.sleep(max(0.0, due - began))
                        began = due
                    answer = call(client, "add", "post",
                        f"/v1/spaces/{space}/conversations/{conversation}/messages",
                        json={"messages": [{"speaker": f"Writer{n}", "id": ident,
                                            "text": f"Note {i} from writer {n}: bought "
                                                    f"{i + 2} apples at market {n}."}]})
                    with lock:
                        took["add"].append((time.perf_counter() - began) * 1000)
                        if answer.status_code == 200 and ident in answer.json()["added"]:
                            acked.append((space, conversation, ident))
                        else:
                            errors.append(f"add {answer.status_code}")

        def forget(n: int) -> None:
            owner = n % args.writers  # forgets what this writer acknowledged, in its space
            space = spaces[owner % len(spaces)]
            with httpx.Client(base_url=url, headers=headers, timeout=300) as client:
                for _ in range(10_000):  # bounded; stops when the writers are done
                    if not writing.is_set():
                        return
                    time.sleep(1.0)
                    with lock:
                        mine = [a for a in acked if a not in forgotten
                                and a[:2] == (space, f"own-{owner}")]
                    if len(mine) < 3:
                        continue
                    _, conversation, ident = mine[len(mine) // 2]
                    start = time.perf_counter()
                    answer = call(client, "forget", "post", f"/v1/spaces/{space}/forget", json={
                        "conversation": conversation, "messages": [ident]})
                    with lock:
                        took["forget"].append((time.perf_counter() - start) * 1000)
                        if answer.status_code == 200:
                            forgotten.add((space, conversation, ident))
                        else:
                            errors.append(f"forget {answer.status_code}")

        def read(n: int) -> None:
            space = spaces[n % len(spaces)]
            with httpx.Client(base_url=url, headers=headers, timeout=120) as client:
                for i in range(10_000):  # bounded; stops when the writers are done
                    if not writing.is_set():
                        return
                    began = time.perf_counter()
                    answer = call(client, "search", "post", f"/v1/spaces/{space}/search", json={
                        "question": f"How many apples did writer {i % args.writers} buy?",
                        "budget": 300})
                    with lock:
                        took["search"].append((time.perf_counter() - began) * 1000)
                        if answer.status_code != 200:
                            errors.append(f"search {answer.status_code}")

        writing.set()
        began = started[0] = time.perf_counter()
        threads = [threading.Thread(target=write, args=(n,)) for n in range(args.writers)]
        readers = [threading.Thread(target=read, args=(n,)) for n in range(args.readers)]
        readers += [threading.Thread(target=forget, args=(n,))
                    for n in range(args.forgetters)]
        for thread in (*threads, *readers):
            thread.start()
        series: list[tuple[float, float]] = []
        while any(t.is_alive() for t in threads):
            series.append((round(time.perf_counter() - began, 1), backlog(url)))
            time.sleep(0.5)
        wrote = time.perf_counter() - began
        writing.clear()
        covered_at_end = derived_share(spaces)
        for thread in readers:
            thread.join(timeout=300)
        drained = None
        for _ in range(240):  # the worker catches up: at most two minutes
            level = backlog(url)
            series.append((round(time.perf_counter() - began, 1), level))
            if level == 0:
                drained = round(time.perf_counter() - began - wrote, 1)
                break
            time.sleep(0.5)
        covered_after = derived_share(spaces)
        with Memory() as memory:
            stored = {(space, c.conversation, m_id) for space in spaces
                      for c in memory.conversations(space)
                      for m_id in every_message(memory, space, c.conversation)}
            for space in spaces:
                memory.delete_space(space)
    finally:
        server.terminate()
        try:
            server.wait(timeout=60)
            stopped = True
        except subprocess.TimeoutExpired:  # reported: a server must stop when asked
            server.kill()
            server.wait(timeout=60)
            stopped = False
    result: dict[str, Any] = {
        "writers": args.writers, "messages_per_writer": args.messages, "readers": args.readers,
        "rate_per_writer": args.rate,
        "forgetters": args.forgetters, "spaces": len(spaces),
        "writing_seconds": round(wrote, 1),
        "messages_per_second": round(len(took["add"]) / wrote, 1),
        "searches_per_second": round(len(took["search"]) / wrote, 1),
        **{f"{kind} ms": {"p50": round(percentile(ms, 50), 1), "p95": round(percentile(ms, 95), 1),
                          "max": round(max(ms), 1), "n": len(ms)}
           for kind, ms in took.items() if ms},
        "errors": len(errors), "errors_by_kind": {e: errors.count(e) for e in set(errors)},
        "acknowledged": len(acked), "forgotten": len(forgotten),
        "lost": len(set(acked) - forgotten - stored),
        "forgotten_but_present": len(forgotten & stored),
        "server_stopped_when_asked": stopped, "backlog_max": max(b for _, b in series),
        "backlog_drained_after_writes_s": drained,
        "derived_share_when_writes_stopped_pct": covered_at_end,
        "derived_share_after_drain_pct": covered_after, "backlog": series[::4]}
    publish(result, args.out)


if __name__ == "__main__":
    main()
