"""The console: one page over the REST API (``graphmem/serve/console/``: plain HTML, CSS and
a JavaScript module, shipped in the wheel, nothing fetched from elsewhere). The page holds no
data: it reads what the caller's bearer token may read, through the same routes. Its
answers forbid inline script and any source but this server, and framing."""

from __future__ import annotations

from functools import cache
from html import escape
from pathlib import Path

from fastapi import APIRouter, HTTPException
from fastapi.responses import Response

ASSETS = Path(__file__).resolve().parent.parent / "console"
TYPES = {"console.js": "text/javascript", "console.css": "text/css"}
POLICY = ("default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
          "img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
HEADERS = {"Content-Security-Policy": POLICY, "X-Content-Type-Options": "nosniff",
           "Referrer-Policy": "no-referrer", "Cache-Control": "no-cache"}

router = APIRouter(include_in_schema=False)


@cache
def page() -> str:
    """The page, with the strategies this server offers as the choices of its search."""
    from graphmem.retrieve.registry import strategy_names  # at the first page, not at import

    options = "".join(f'<option value="{escape(n)}">{escape(n)}</option>'
                      for n in strategy_names())
    return (ASSETS / "index.html").read_text().replace("STRATEGIES", options)


@router.get("/console")
def console() -> Response:
    return Response(page(), media_type="text/html", headers=HEADERS)


@router.get("/console/{name}")
def asset(name: str) -> Response:
    if name not in TYPES:
        raise HTTPException(404, f"the console has no file {name!r}")
    return Response((ASSETS / name).read_text(), media_type=TYPES[name], headers=HEADERS)
