"""Build, start, watch and stop a local Neo4j 5.26 Community server with GDS 2.13.

No Docker and no tarball: Maven fetches Neo4j, Neo4j Browser and the open GDS jars from
Maven Central (see ``java/pom.xml``), and a tiny launcher class runs Neo4j's own server entry
point in a detached JVM. Everything lives under ``Settings.neo4j_home``::

    build/      launcher jar, lib/ (class path), plugins/ (GDS jars, scanned for procedures)
    conf/       neo4j.conf written from the settings on every start
    data/ logs/ run/ import/
    neo4j.pid   the JVM's process id while it runs
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from neo4j import GraphDatabase
from neo4j.exceptions import AuthError, Neo4jError, ServiceUnavailable

from graphmem.config import Settings
from graphmem.errors import GraphmemError
from graphmem.processes import (
    UMASK,
    free_port,
    live_pid,
    make_private,
    port_open,
    private_folder,
    read_pid_file,
    rss_mb,
    terminate,
)

JAVA_DIR = Path(__file__).parent / "java"
LAUNCHER_CLASS = "dev.graphmem.Launcher"
JVM_OPENS = (
    "java.base/java.nio",
    "java.base/sun.nio.ch",
    "java.base/java.io",
    "java.base/java.lang",
    "java.base/java.util",
)


class Neo4jServerError(GraphmemError):
    """The local server could not be built, started or stopped."""


@dataclass(frozen=True)
class ServerStatus:
    running: bool
    managed: bool  # started by graphmem (we hold its pid)
    pid: int | None
    gds_version: str | None
    neo4j_version: str | None
    rss_mb: float | None
    detail: str = ""

    def describe(self) -> str:
        if not self.running:
            return f"not running{': ' + self.detail if self.detail else ''}"
        who = f"pid {self.pid}" if self.managed else "not started by graphmem"
        mem = f", {self.rss_mb:.0f} MB resident" if self.rss_mb is not None else ""
        return f"running ({who}{mem}): Neo4j {self.neo4j_version}, GDS {self.gds_version}"


class LocalNeo4j:
    """The local server described by a :class:`Settings` object.

    ``private``: the server answers Bolt only on the settings' port, which no client is told
    (:meth:`private_twin`), and no HTTP; ``holds_lock``: this object's process holds the
    compaction lock, so it may start and stop the server while other processes may not."""

    def __init__(self, settings: Settings, *, private: bool = False,
                 holds_lock: bool = False) -> None:
        self.settings = settings
        self.private = private
        self.holds_lock = holds_lock
        self.home = settings.neo4j_home
        self.build_dir = self.home / "build"
        self.pid_file = self.home / "neo4j.pid"
        self.console_log = self.home / "logs" / "console.log"
        self.compact_lock = self.home / "compacting.lock"

    # ---------------------------------------------------------------- compaction's lock
    @contextlib.contextmanager
    def compacting(self) -> Iterator[LocalNeo4j]:
        """Hold the compaction lock: until it is let go, no other process starts or stops
        this server (``graphmem neo4j start`` says why). Yields this server, allowed to."""
        private_folder(self.home)
        with self.compact_lock.open("a") as handle:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise Neo4jServerError(f"another compaction of {self.home} is under way") from None
            self.holds_lock = True
            try:
                yield self
            finally:
                self.holds_lock = False
                fcntl.flock(handle, fcntl.LOCK_UN)

    def private_twin(self) -> LocalNeo4j:
        """This server's data on ports of its own that no client knows (Bolt only): what a
        compaction runs while it exports and imports, so that nobody writes meanwhile."""
        settings = self.settings.model_copy(update={
            "neo4j_uri": f"bolt://127.0.0.1:{free_port()}", "neo4j_http_port": free_port()})
        return LocalNeo4j(settings, private=True, holds_lock=self.holds_lock)

    def _refuse_while_compacting(self, what: str) -> None:
        if self.holds_lock or not self.compact_lock.exists():
            return
        try:
            with self.compact_lock.open("a") as handle:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                fcntl.flock(handle, fcntl.LOCK_UN)
        except BlockingIOError:
            raise Neo4jServerError(
                f"cannot {what} the local Neo4j now: `graphmem neo4j compact` is writing its "
                "database anew and keeps every client out until it ends") from None
        except OSError:
            return

    def sibling(self, home: Path, **overrides: Any) -> LocalNeo4j:
        """Another local server with its own ``home`` (data, logs, configuration) that shares
        this one's built jars, so it starts without Maven: for benchmarks and fault tests.
        ``overrides`` are :class:`Settings` fields (ports, heap, timeouts)."""
        self.build()
        settings = self.settings.model_copy(update={"home": home, **overrides})
        private_folder(settings.neo4j_home)
        link = settings.neo4j_home / "build"
        if not link.exists():
            link.symlink_to(self.build_dir.resolve(), target_is_directory=True)
        return LocalNeo4j(settings)

    # ---------------------------------------------------------------- build
    def _source_digest(self) -> str:
        digest = hashlib.sha256()
        for path in sorted(JAVA_DIR.rglob("*")):
            if path.is_file() and "target" not in path.parts:
                digest.update(path.relative_to(JAVA_DIR).as_posix().encode())
                digest.update(path.read_bytes())
        return digest.hexdigest()

    def is_built(self) -> bool:
        stamp = self.build_dir / "graphmem-build.sha256"
        return stamp.exists() and stamp.read_text().strip() == self._source_digest()

    def build(self, force: bool = False) -> None:
        """Resolve the jars from Maven Central and compile the launcher (first time only)."""
        if self.is_built() and not force:
            return
        mvn = shutil.which("mvn")
        if mvn is None:
            raise Neo4jServerError("Maven ('mvn') is not on PATH; it is needed to fetch Neo4j")
        if shutil.which("java") is None:
            raise Neo4jServerError("Java 17 or 21 ('java') is not on PATH")
        self.build_dir.mkdir(parents=True, exist_ok=True)
        cmd = [
            mvn, "-B", "-q", "-f", str(JAVA_DIR / "pom.xml"), "package",
            f"-Dgraphmem.buildDir={self.build_dir}",
        ]
        result = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if result.returncode != 0:
            tail = (result.stdout + result.stderr)[-3000:]
            raise Neo4jServerError(f"building the Neo4j launcher failed:\n{tail}")
        (self.build_dir / "graphmem-build.sha256").write_text(self._source_digest())

    # ---------------------------------------------------------------- config
    def write_config(self) -> Path:
        conf_dir = self.home / "conf"
        # the store, its transaction logs and the logs hold what was said: the owner's alone
        # (a GRAPHMEM_HOME that exists is the user's choice and keeps its mode; neo4j/ is ours)
        self.settings.home.mkdir(parents=True, exist_ok=True, mode=0o700)
        private_folder(self.home)
        for sub in ("conf", "data", "logs", "run", "import"):
            private_folder(self.home / sub)
        for sub in ("data", "logs", "import"):  # what an install made before this rule
            make_private(self.home / sub)
        s = self.settings
        lines = {
            "server.directories.data": self.home / "data",
            "server.directories.logs": self.home / "logs",
            "server.directories.run": self.home / "run",
            "server.directories.import": self.home / "import",
            "server.directories.plugins": self.build_dir / "plugins",
            "server.default_listen_address": "127.0.0.1",
            "server.bolt.enabled": "true",
            "server.bolt.listen_address": f"127.0.0.1:{s.bolt_port}",
            # what a neo4j:// (routing) driver is told to connect to: this very address
            "server.bolt.advertised_address": f"127.0.0.1:{s.bolt_port}",
            "server.http.enabled": "false" if self.private else "true",
            "server.http.listen_address": f"127.0.0.1:{s.neo4j_http_port}",
            "server.https.enabled": "false",
            "dbms.security.auth_enabled": "true",
            "dbms.security.procedures.unrestricted": "gds.*",
            "server.memory.pagecache.size": s.neo4j_pagecache,
            "dbms.usage_report.enabled": "false",
            "db.tx_log.rotation.retention_policy": "2 files",
        }
        text = "# written by graphmem on every start; edit the settings, not this file\n"
        text += "".join(f"{key}={value}\n" for key, value in lines.items())
        (conf_dir / "neo4j.conf").write_text(text)
        return conf_dir

    # ---------------------------------------------------------------- probes
    def _pid_and_port(self) -> tuple[int, int] | None:
        return read_pid_file(self.pid_file)

    def _pid(self) -> int | None:
        recorded = self._pid_and_port()
        return live_pid(recorded[0], LAUNCHER_CLASS.encode()) if recorded else None

    def _port_open(self) -> bool:
        return port_open(self.settings.bolt_host, self.settings.bolt_port)

    def _query_versions(self) -> tuple[str, str]:
        s = self.settings
        auth = (s.neo4j_user, s.neo4j_password.get_secret_value())
        # bounded like every other connection: a server that is dying must not hold a status
        # probe in the driver's default 30 s of retries
        with GraphDatabase.driver(s.neo4j_uri, auth=auth, connection_timeout=s.neo4j_timeout,
                                  max_transaction_retry_time=s.neo4j_timeout) as driver:
            records, _, _ = driver.execute_query(
                "CALL dbms.components() YIELD versions "
                "RETURN gds.version() AS gds, versions[0] AS neo4j",
                database_="system",
            )
            return str(records[0]["gds"]), str(records[0]["neo4j"])

    def status(self) -> ServerStatus:
        pid = self._pid()
        if not self._port_open():
            detail = "process alive but Bolt not answering yet" if pid else ""
            return ServerStatus(False, pid is not None, pid, None, None, None, detail)
        try:
            gds, neo = self._query_versions()
        except (ServiceUnavailable, OSError) as exc:
            return ServerStatus(False, pid is not None, pid, None, None, None, str(exc))
        except AuthError as exc:
            raise Neo4jServerError(
                f"a server answers on {self.settings.neo4j_uri} but rejects the configured "
                f"credentials (GRAPHMEM_NEO4J_USER / GRAPHMEM_NEO4J_PASSWORD): {exc.message}"
            ) from exc
        except Neo4jError as exc:
            return ServerStatus(True, pid is not None, pid, None, None, None, exc.message or "")
        return ServerStatus(True, pid is not None, pid, gds, neo, rss_mb(pid))

    # ---------------------------------------------------------------- start / stop
    def start(self) -> ServerStatus:
        """Start the server and return once ``gds.version()`` answers; no-op when running."""
        self._refuse_while_compacting("start")
        current = self.status()
        if current.running:
            if current.gds_version is None:
                raise Neo4jServerError(
                    f"a Neo4j on {self.settings.neo4j_uri} answers but has no GDS: {current.detail}"
                )
            return current
        if current.pid is not None:
            recorded = self._pid_and_port()
            if recorded and recorded[1] != self.settings.bolt_port:
                raise Neo4jServerError(
                    f"the server of {self.home} (pid {current.pid}) listens on port "
                    f"{recorded[1]}, not {self.settings.bolt_port}; run `graphmem neo4j stop` "
                    "with the settings it was started with, or use another GRAPHMEM_HOME"
                )
            return self._wait_ready(current.pid, time.monotonic())
        if self.settings.bolt_host not in {"127.0.0.1", "localhost", "::1"}:
            raise Neo4jServerError(
                f"GRAPHMEM_NEO4J_URI points at {self.settings.bolt_host}, which does not answer; "
                "graphmem starts servers on this machine only"
            )
        self.build()
        conf_dir = self.write_config()
        s = self.settings
        classpath = f"{self.build_dir / 'graphmem-neo4j.jar'}{os.pathsep}{self.build_dir / 'lib'}/*"
        cmd = [
            shutil.which("java") or "java",
            f"-Xmx{s.neo4j_heap}",
            "-XX:+UseG1GC",
            "-XX:+ExitOnOutOfMemoryError",
            "-Dfile.encoding=UTF-8",
            *(f"--add-opens={module}=ALL-UNNAMED" for module in JVM_OPENS),
            "-cp", classpath,
            LAUNCHER_CLASS, str(self.home), str(conf_dir),
        ]
        env = dict(os.environ)
        env["GRAPHMEM_NEO4J_INITIAL_PASSWORD"] = s.neo4j_password.get_secret_value()
        began = time.monotonic()
        with open(self.console_log, "ab") as log:
            proc = subprocess.Popen(
                cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                env=env, start_new_session=True, cwd=self.home, umask=UMASK,
            )
        self.pid_file.write_text(f"{proc.pid} {s.bolt_port}\n")
        return self._wait_ready(proc.pid, began, proc)

    def _wait_ready(
        self, pid: int, began: float, proc: subprocess.Popen[bytes] | None = None
    ) -> ServerStatus:
        deadline = began + self.settings.neo4j_start_timeout
        while time.monotonic() < deadline:
            exited = proc.poll() is not None if proc is not None else self._pid() is None
            if exited:
                self.pid_file.unlink(missing_ok=True)
                raise Neo4jServerError(f"Neo4j exited during start-up:\n{self._log_tail()}")
            status = self.status()
            if status.running and status.gds_version:
                return status
            time.sleep(0.5)
        self.stop()
        raise Neo4jServerError(
            f"Neo4j did not answer within {self.settings.neo4j_start_timeout:.0f}s:\n"
            f"{self._log_tail()}"
        )

    def stop(self, timeout: float = 90.0) -> bool:
        """Shut the server down cleanly (SIGTERM, then SIGKILL after ``timeout``)."""
        self._refuse_while_compacting("stop")
        pid = self._pid()
        if pid is None:
            self.pid_file.unlink(missing_ok=True)
            return False
        terminate(pid, LAUNCHER_CLASS.encode(), timeout)
        self.pid_file.unlink(missing_ok=True)
        return True

    def _log_tail(self, chars: int = 3000) -> str:
        parts = []
        for path in (self.console_log, self.home / "logs" / "neo4j.log"):
            if path.exists():
                parts.append(f"--- {path}\n{path.read_text(errors='replace')[-chars:]}")
        return "\n".join(parts) or "(no log written)"
