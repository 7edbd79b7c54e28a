"""A local OpenAI-compatible LLM server: llama.cpp (llama-cpp-python's server) on localhost.

The runtime lives in its own virtual environment under ``GRAPHMEM_HOME/llm/venv`` so that its
build does not touch graphmem's own environment. llama-cpp-python is compiled from source
with the CPU-specific paths off (``-DGGML_NATIVE=OFF``): the default build uses instructions
that crash on some of our machines. pip keeps the built wheel in its cache, so later installs
are quick. Once running, graphmem talks to it like to any endpoint::

    GRAPHMEM_LLM_BASE_URL=http://127.0.0.1:8088/v1  GRAPHMEM_LLM_MODEL=smollm2-135m
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from graphmem.config import Settings
from graphmem.errors import GraphmemError
from graphmem.llm_server.weights import ModelSpec, ensure_weights, model_spec
from graphmem.processes import live_pid, port_open, read_pid_file, rss_mb, terminate

RUNTIME = "llama-cpp-python[server]==0.3.36"
BUILD_FLAGS = "-DGGML_NATIVE=OFF"
SERVER_MODULE = "llama_cpp.server"


class LLMServerError(GraphmemError):
    """The local LLM server could not be installed, started or stopped."""


@dataclass(frozen=True)
class LLMServerStatus:
    running: bool
    pid: int | None
    port: int | None
    model: str | None
    rss_mb: float | None = None

    @property
    def base_url(self) -> str | None:
        return f"http://127.0.0.1:{self.port}/v1" if self.port else None

    def describe(self) -> str:
        if not self.running:
            return "not running"
        mem = f", {self.rss_mb:.0f} MB resident" if self.rss_mb is not None else ""
        return f"running (pid {self.pid}{mem}): {self.model} at {self.base_url}"


class LocalLLMServer:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.home = settings.home / "llm"
        self.venv = self.home / "venv"
        self.pid_file = self.home / "server.pid"
        self.log = self.home / "server.log"

    # ---------------------------------------------------------------- install
    @property
    def python(self) -> Path:
        return self.venv / "bin" / "python"

    def runtime_ready(self) -> bool:
        stamp = self.venv / "graphmem-runtime.txt"
        return self.python.exists() and stamp.exists() and stamp.read_text() == RUNTIME

    def install_runtime(self) -> None:
        """Create the venv and build llama-cpp-python into it (once; minutes the first time)."""
        if self.runtime_ready():
            return
        self.home.mkdir(parents=True, exist_ok=True)
        if not self.python.exists():
            self._run([sys.executable, "-m", "venv", str(self.venv)], "create the venv")
        env = {**os.environ, "CMAKE_ARGS": BUILD_FLAGS}
        self._run([str(self.python), "-m", "pip", "install", "--disable-pip-version-check",
                   "--quiet", RUNTIME], "install llama-cpp-python", env)
        self._run([str(self.python), "-c", "import llama_cpp.server"], "import the server")
        (self.venv / "graphmem-runtime.txt").write_text(RUNTIME)

    def _run(self, cmd: list[str], what: str, env: dict[str, str] | None = None) -> None:
        done = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
        if done.returncode != 0:
            raise LLMServerError(f"could not {what}: {(done.stderr or done.stdout)[-1500:]}")

    # ---------------------------------------------------------------- run
    def status(self) -> LLMServerStatus:
        recorded = read_pid_file(self.pid_file)
        if recorded is None:
            return LLMServerStatus(False, None, None, None)
        pid = live_pid(recorded[0], SERVER_MODULE.encode())
        parts = self.pid_file.read_text().split()
        model = parts[2] if len(parts) > 2 else None
        if pid is None or not self._answers(recorded[1]):
            return LLMServerStatus(False, pid, recorded[1], model)
        return LLMServerStatus(True, pid, recorded[1], model, rss_mb(pid))

    @staticmethod
    def _answers(port: int) -> bool:
        if not port_open("127.0.0.1", port):
            return False
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=5) as r:
                return bool(json.loads(r.read()).get("data"))
        except (OSError, ValueError):
            return False

    def start(self, model: str, port: int | None = None, threads: int | None = None,
              context: int | None = None, timeout: float = 180.0) -> LLMServerStatus:
        """Install what is missing, start the server and return once it answers. A server
        already running with the same model is reused; one with another model is an error."""
        spec: ModelSpec = model_spec(model)
        s = self.settings
        port = port or s.llm_server_port
        current = self.status()
        if current.running:
            if current.model == spec.name and current.port == port:
                return current
            raise LLMServerError(f"a server is running with {current.model} on port "
                                 f"{current.port}; `graphmem llm stop` first")
        if current.pid is not None:  # started but not answering (still loading, or stuck)
            terminate(current.pid, SERVER_MODULE.encode(), 10)
        if port_open("127.0.0.1", port):
            raise LLMServerError(f"port {port} is taken by another program")
        self.install_runtime()
        weights = ensure_weights(spec, self.home / "models")
        cmd = [str(self.python), "-m", SERVER_MODULE, "--model", str(weights),
               "--model_alias", spec.name, "--host", "127.0.0.1", "--port", str(port),
               "--n_threads", str(threads or s.llm_server_threads),
               "--n_ctx", str(context or s.llm_server_context)]
        began = time.monotonic()
        with open(self.log, "ab") as log:
            proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT,
                                    stdin=subprocess.DEVNULL, start_new_session=True)
        self.pid_file.write_text(f"{proc.pid} {port} {spec.name}\n")
        while time.monotonic() - began < timeout:
            if proc.poll() is not None:
                self.pid_file.unlink(missing_ok=True)
                raise LLMServerError(f"the LLM server exited during start-up:\n{self._tail()}")
            status = self.status()
            if status.running:
                return status
            time.sleep(0.5)
        self.stop()
        raise LLMServerError(f"the LLM server did not answer within {timeout:.0f}s:\n"
                             f"{self._tail()}")

    def stop(self, timeout: float = 30.0) -> bool:
        recorded = read_pid_file(self.pid_file)
        pid = live_pid(recorded[0], SERVER_MODULE.encode()) if recorded else None
        self.pid_file.unlink(missing_ok=True)
        if pid is None:
            return False
        terminate(pid, SERVER_MODULE.encode(), timeout)
        return True

    def _tail(self, chars: int = 3000) -> str:
        return self.log.read_text(errors="replace")[-chars:] if self.log.exists() else ""
