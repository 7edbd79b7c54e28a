"""`graphmem mcp` over stdio answers the handshake with nothing else running, and starts
loading the client and its models at the first message after it (``AfterHandshake``)."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

from graphmem.serve.mcp_tools import AfterHandshake


def test_loading_starts_once_after_the_handshake_not_during_it() -> None:
    started: list[str] = []
    handled: list[str] = []
    middleware = AfterHandshake(lambda: started.append("load"))

    async def call_next(ctx: Any) -> str:
        handled.append(ctx.method)
        return ctx.method  # type: ignore[no-any-return]

    async def messages() -> list[Any]:
        out = []
        for method in ("initialize", "notifications/initialized", "tools/list", "tools/call"):
            out.append(await middleware(SimpleNamespace(method=method), call_next))
            if method == "initialize":
                assert started == []  # the handshake is answered before anything loads
        return out

    assert asyncio.run(messages()) == ["initialize", "notifications/initialized",
                                       "tools/list", "tools/call"]
    assert started == ["load"] and len(handled) == 4
