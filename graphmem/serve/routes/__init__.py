"""The REST routes, one router per group of operations: remembering and recalling
(``memory``), what a space holds (``spaces``), changing what it holds (``edits``); and the
console, the page in a browser over them (``console``)."""

from graphmem.serve.routes import console, edits, memory, spaces

ROUTERS = (spaces.router, memory.router, edits.router, console.router)

__all__ = ["ROUTERS"]
