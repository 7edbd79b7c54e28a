"""The console: one page over the REST API (``graphmem/serve/console/``: plain HTML, CSS and
a JavaScript module, shipped in the wheel, nothing fetched from elsewhere). The page holds no
data: it reads what the caller's bearer token may read, through the same routes. Its
answers forbid inline script and any source but this server, and framing. A unit's
neighbourhood opens in Neo4j Browser, with the saved query."""

from __future__ import annotations

from functools import cache
from html import escape
from pathlib import Path

from fastapi import APIRouter, HTTPException
from fastapi.responses import Response

from graphmem.serve.deps import Memories

ASSETS = Path(__file__).resolve().parent.parent / "console"
TYPES = {"console.js": "text/javascript", "console.css": "text/css"}
POLICY = ("default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
          "img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
HEADERS = {"Content-Security-Policy": POLICY, "X-Content-Type-Options": "nosniff",
           "Referrer-Policy": "no-referrer", "Cache-Control": "no-cache"}

AROUND = "browser/12_around_a_unit"  # its first line names the unit: the page sets it
router = APIRouter(include_in_schema=False)


@cache
def page(browser: str | None, bolt: str, database: str) -> str:
    """The page, with the strategies this server offers as the choices of its search and,
    when Neo4j Browser's address is known, what its link to a unit's neighbourhood needs:
    the address, the connection to preselect, and the saved query it opens."""
    from graphmem import cypher
    from graphmem.retrieve.registry import strategy_names  # at the first page, not at import

    options = "".join(f'<option value="{escape(n)}">{escape(n)}</option>'
                      for n in strategy_names())
    around = "" if browser is None else (
        f'<template id="browser" data-address="{escape(browser)}" data-dbms="{escape(bolt)}" '
        f'data-db="{escape(database)}">{escape(cypher.load(AROUND))}</template>')
    return (ASSETS / "index.html").read_text().replace("STRATEGIES", options) \
        .replace("<!-- BROWSER -->", around)


@router.get("/console")
def console(memory: Memories) -> Response:
    s = memory.settings
    return Response(page(s.browser_address, s.neo4j_uri, s.neo4j_database),
                    media_type="text/html", headers=HEADERS)


@router.get("/console/{name}")
def asset(name: str) -> Response:
    if name not in TYPES:
        raise HTTPException(404, f"the console has no file {name!r}")
    return Response((ASSETS / name).read_text(), media_type=TYPES[name], headers=HEADERS)
