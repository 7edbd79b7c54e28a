"""The server image without Docker (our machines have none): the Dockerfile's build step, its
start command and its health check run as processes here against the local Neo4j, and the
compose service that runs the image says what the image needs."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import httpx
import yaml

from graphmem.client import Memory

from helpers import SAMPLE, free_port

DOCKER = Path(__file__).resolve().parents[2] / "docker"
TOKEN = "image-test-token-0123456789"


def instruction(name: str) -> list[str]:
    """The JSON-array form of a Dockerfile instruction (CMD, or HEALTHCHECK's CMD)."""
    text = (DOCKER / "Dockerfile").read_text(encoding="utf-8").replace("\\\n", " ")
    found = re.search(rf"^{name}\b.*?CMD (\[.*?\])\s*$" if name == "HEALTHCHECK"
                      else rf"^{name} (\[.*?\])\s*$", text, re.MULTILINE)
    assert found, name
    return list(json.loads(found.group(1)))


def test_the_compose_service_runs_the_image_with_what_it_needs() -> None:
    compose = yaml.safe_load((DOCKER / "compose.yml").read_text(encoding="utf-8"))
    service = compose["services"]["graphmem"]
    assert service["build"]["dockerfile"] == "docker/Dockerfile"
    assert service["depends_on"]["neo4j"]["condition"] == "service_healthy"
    assert {"GRAPHMEM_NEO4J_URI", "GRAPHMEM_NEO4J_PASSWORD", "GRAPHMEM_REST_TOKENS"} <= set(
        service["environment"])
    assert service["environment"]["GRAPHMEM_NEO4J_URI"] == "bolt://neo4j:7687"
    assert "127.0.0.1:8000:8000" in service["ports"]
    assert "graphmem-home:/var/lib/graphmem" in service["volumes"]
    assert "graphmem-home" in compose["volumes"]
    assert compose["services"]["graphmem-mcp"]["profiles"] == ["mcp"]


def test_the_image_commands_serve_as_processes(memory: Memory, space: str,
                                               neo4j_server: object) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRAPHMEM_LLM")}
    env["GRAPHMEM_REST_TOKENS"] = json.dumps({TOKEN: [space]})
    prepared = subprocess.run([sys.executable, "-m", "graphmem.serve.image", "prepare"],
                              env=env, capture_output=True, text=True, timeout=600,
                              check=False)
    assert prepared.returncode == 0, prepared.stderr[-2000:]
    start, check = instruction("CMD"), instruction("HEALTHCHECK")
    assert start[:2] == ["graphmem", "serve"] and start[start.index("--host") + 1] == "0.0.0.0"
    port = str(free_port())
    start[start.index("--port") + 1] = port
    check = [sys.executable if part == "python" else part.replace("8000", port)
             for part in check]
    assert subprocess.run(check, env=env, timeout=30, check=False).returncode == 1  # not up
    process = subprocess.Popen([sys.executable, "-m", "graphmem", *start[1:]], env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 120
        while subprocess.run(check, env=env, timeout=30, check=False).returncode != 0:
            assert process.poll() is None, process.stderr.read().decode()  # type: ignore[union-attr]
            assert time.monotonic() < deadline, "the server did not become healthy"
            time.sleep(1)
        memory.ingest(SAMPLE, space=space, layers="")
        found = httpx.post(f"http://127.0.0.1:{port}/v1/spaces/{space}/search",
                           json={"question": "What did Maya adopt?", "budget": 100},
                           headers={"Authorization": f"Bearer {TOKEN}"}, timeout=60)
        assert found.status_code == 200 and "Pepper" in found.json()["context"], found.text
    finally:
        process.terminate()
        process.wait(timeout=30)
