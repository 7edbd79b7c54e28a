"""The REST routes, one router per group of operations: remembering and recalling
(``memory``), what a space holds (``spaces``), changing what it holds (``edits``)."""

from graphmem.serve.routes import edits, memory, spaces

ROUTERS = (spaces.router, memory.router, edits.router)

__all__ = ["ROUTERS"]
