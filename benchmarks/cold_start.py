"""What a new process costs before it answers: install size, a cold CLI search, Memory() and
its first search, MCP's handshake, and a coding agent's hooks cold and through their local
server.

    python benchmarks/cold_start.py --python /tmp/light/bin/python --space locomo-1 \\
        --out docs/results/cold_start.json

``--python`` is the interpreter of the install to measure (a fresh venv with
``graphmem[server]`` from a built wheel is what a user gets; default: this one). ``--space``
must hold a conversation (e.g. one LoCoMo conversation, ingested with every layer). Every
figure is wall time of a new process, median and p95 of ``--runs``, with its peak RSS.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from common import ROOT, make_parser, publish

HOOKS = ROOT / "tests" / "data" / "hooks"
QUESTION = "Where did Caroline go hiking, and what did she find there?"

_TIMED = """
import json, resource, subprocess, sys, time
began = time.perf_counter()
done = subprocess.run(json.loads(sys.argv[1]), input=sys.stdin.read(), capture_output=True,
                      text=True)
seconds = time.perf_counter() - began
print(json.dumps({"seconds": seconds, "rss_mb": resource.getrusage(
    resource.RUSAGE_CHILDREN).ru_maxrss / 1024, "code": done.returncode,
    "out": done.stdout[-300:], "err": done.stderr[-300:]}))
"""


def timed(argv: list[str], stdin: str = "", env: dict[str, str] | None = None) -> dict[str, Any]:
    """One new process: wall seconds and peak RSS (measured by a wrapper of its own)."""
    out = subprocess.run([sys.executable, "-c", _TIMED, json.dumps(argv)], input=stdin,
                         capture_output=True, text=True, env=env, check=True).stdout
    result: dict[str, Any] = json.loads(out)
    if result["code"] != 0:
        raise SystemExit(f"{argv} failed: {result['err']}")
    return result


def summary(samples: list[dict[str, Any]]) -> dict[str, float]:
    seconds = sorted(s["seconds"] for s in samples)
    p95 = seconds[min(len(seconds) - 1, round(0.95 * (len(seconds) - 1)))]
    return {"p50_s": round(statistics.median(seconds), 3), "p95_s": round(p95, 3),
            "max_rss_mb": round(max(s["rss_mb"] for s in samples), 1), "runs": len(samples)}


def install_size(python: str) -> dict[str, Any]:
    site = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()"
                           "['purelib'])"], capture_output=True, text=True,
                          check=True).stdout.strip()
    sizes: dict[str, int] = {}
    for entry in Path(site).iterdir():
        files = [entry] if entry.is_file() else [f for f in entry.rglob("*") if f.is_file()]
        name = entry.name.split("-")[0].removesuffix(".libs")
        sizes[name] = sizes.get(name, 0) + sum(f.stat().st_size for f in files)
    top = sorted(sizes.items(), key=lambda kv: -kv[1])[:12]
    return {"total_mb": round(sum(sizes.values()) / 1e6), "site_packages": site,
            "largest_mb": {k: round(v / 1e6) for k, v in top},
            "torch": any(k in sizes for k in ("torch", "nvidia", "triton"))}


FIRST_SEARCH = """
import sys, time
began = time.perf_counter()
from graphmem import Memory
memory = Memory()
memory.search(sys.argv[1], space=sys.argv[2])
print(time.perf_counter() - began)
"""

MCP = """
import json, subprocess, sys, time
began = time.perf_counter()
server = subprocess.Popen(json.loads(sys.argv[1]), stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
def send(message):
    server.stdin.write(json.dumps(message) + "\\n")
    server.stdin.flush()
send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {},
    "clientInfo": {"name": "cold-start", "version": "1"}}})
server.stdout.readline()
initialized = time.perf_counter() - began
send({"jsonrpc": "2.0", "method": "notifications/initialized"})
send({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
server.stdout.readline()
listed = time.perf_counter() - began
server.kill()
print(json.dumps({"initialize_s": initialized, "tools_list_s": listed}))
"""


def payload(name: str) -> str:
    return (HOOKS / name).read_text().replace("TRANSCRIPT", str(HOOKS / "claude_transcript.jsonl"))


def hooks(graphmem: str, space: str, runs: int) -> dict[str, Any]:
    """Hook latency with the models loaded in each hook, then through the local server (its
    first start timed apart)."""
    home = tempfile.mkdtemp(prefix="graphmem-cold-")
    env = {**os.environ, "GRAPHMEM_HOOK_SPACE": space, "GRAPHMEM_HOME": home}
    result: dict[str, Any] = {}
    for event, name in (("prompt", "prompt.json"), ("session-start", "session_start.json")):
        cold = {**env, "GRAPHMEM_HOOK_LOCAL": "0"}
        result[f"{event}_cold"] = summary([timed([graphmem, "hook"], payload(name), cold)
                                           for _ in range(max(1, runs // 3))])
    local = {**env, "GRAPHMEM_HOOK_LOCAL": "1", "GRAPHMEM_HOOK_IDLE": "120"}
    result["local_server_first_start"] = summary([timed([graphmem, "hook"],
                                                        payload("prompt.json"), local)])
    for event, name in (("prompt", "prompt.json"), ("session-start", "session_start.json"),
                        ("capture", "stop.json")):
        result[f"{event}_local"] = summary([timed([graphmem, "hook"], payload(name), local)
                                            for _ in range(runs)])
    return result


def main() -> None:
    parser = make_parser(__doc__)
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--space", required=True)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    graphmem = str(Path(args.python).with_name("graphmem"))
    runs = max(1, args.runs)
    searches = [timed([graphmem, "search", QUESTION, "--space", args.space])
                for _ in range(max(3, runs // 3))]
    away = tempfile.mkdtemp()  # `python -c` puts the working folder first on the path
    first = sorted(float(subprocess.run([args.python, "-c", FIRST_SEARCH, QUESTION, args.space],
                                        capture_output=True, text=True, check=True, cwd=away)
                         .stdout.split()[-1]) for _ in range(3))
    mcp_runs = [json.loads(subprocess.run(
        [args.python, "-c", MCP, json.dumps([graphmem, "mcp", "--space", args.space])],
        capture_output=True, text=True, check=True, cwd=away).stdout) for _ in range(3)]
    publish({
        "when": time.strftime("%Y-%m-%d %H:%M"), "load_before": os.getloadavg()[0],
        "install": install_size(args.python),
        "cli_search": summary(searches),
        "memory_then_first_search_s": round(first[1], 3),
        "mcp": {k: round(statistics.median(r[k] for r in mcp_runs), 3)
                for k in ("initialize_s", "tools_list_s")},
        "hooks": hooks(graphmem, args.space, runs),
        "load_after": os.getloadavg()[0],
    }, args.out)


if __name__ == "__main__":
    main()
