"""The hooks' local server (:mod:`graphmem.integrations.hook_local` starts it): the REST app
for one space on a Unix socket under ``GRAPHMEM_HOME/run``, for the user's own hooks only.

    python -m graphmem.serve.local --space coding-agent --key <the hook's key>

It holds ``run/hook-<key>.lock`` while it lives (a second one ends at once), loads the models
before it binds the socket (a hook that can connect gets an answer at the speed of a warm
search), accepts only the bearer secret of ``run/hook-<key>.token``, and ends after
``GRAPHMEM_HOOK_IDLE`` seconds without a request, removing its socket. As it starts it stores
the captures hooks spooled while no server answered (:mod:`graphmem.integrations.hook_spool`).
"""

from __future__ import annotations

import argparse
import fcntl
import os
import sys
import threading
import time
from collections.abc import Awaitable, Callable
from typing import Any

from graphmem.integrations.hook_local import IDLE_DEFAULT, LocalServer


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--space", required=True)
    parser.add_argument("--key", required=True)
    args = parser.parse_args(argv)
    server = LocalServer.for_space(args.space)
    if server.key != args.key:
        print(f"graphmem local server: this environment's key is {server.key}, not {args.key}",
              file=sys.stderr)
        return 2
    with server.lock_file.open("a") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return 0  # another one is starting or serving
        serve(server, args.space, float(os.environ.get("GRAPHMEM_HOOK_IDLE") or IDLE_DEFAULT))
    return 0


def serve(server: LocalServer, space: str, idle: float) -> None:
    import uvicorn
    from fastapi import Request, Response

    from graphmem.client import Memory
    from graphmem.config import Settings
    from graphmem.integrations.hooks import Hook, LocalBackend
    from graphmem.serve.access import Spaces
    from graphmem.serve.rest import build_app

    settings = Settings()
    tokens = {server.token(): Spaces.of([space], "the hooks' local server")}
    with Memory(settings) as memory:
        began = time.perf_counter()
        memory.warm_up()
        app = build_app(memory, tokens, int(settings.rest_max_request_mb * 2**20))
        last = [time.monotonic()]

        @app.middleware("http")
        async def note_request(request: Request,
                               call_next: Callable[[Request], Awaitable[Response]]) -> Any:
            last[0] = time.monotonic()
            try:
                return await call_next(request)
            finally:
                last[0] = time.monotonic()

        server.socket.unlink(missing_ok=True)  # one left by a server that was killed
        config = uvicorn.Config(app, uds=str(server.socket), log_level="warning")
        web = uvicorn.Server(config)

        def end_when_idle() -> None:
            while not web.should_exit:
                time.sleep(min(5.0, idle / 4))
                if time.monotonic() - last[0] > idle:
                    print(f"graphmem local server: idle for {idle:.0f} s, ending", flush=True)
                    web.should_exit = True

        def drain_spool() -> None:  # the captures hooks kept while no server answered
            try:
                stored = server.spool.drain(Hook(LocalBackend(memory, space)).capture,
                                            lambda line: print(line, flush=True))
            except Exception as exc:  # they wait for the next drain; the server goes on
                print(f"graphmem local server: the spool waits ({exc})", flush=True)
                return
            if stored:
                print(f"graphmem local server: stored {stored} spooled capture(s)", flush=True)
            last[0] = time.monotonic()

        threading.Thread(target=end_when_idle, daemon=True).start()
        threading.Thread(target=drain_spool, daemon=True).start()
        print(f"graphmem local server for {space} on {server.socket} "
              f"(models loaded in {time.perf_counter() - began:.1f} s)", flush=True)
        server.failed_file.unlink(missing_ok=True)
        try:
            web.run()
        finally:
            server.socket.unlink(missing_ok=True)


if __name__ == "__main__":
    sys.exit(main())
