"""A ``Memory`` made when first needed: ``graphmem mcp`` answers an agent's handshake and tool
list before the client, the database driver and the models are even imported, and makes the
client on a thread of its own meanwhile (a tool called before then waits for it)."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from graphmem.config import Settings

if TYPE_CHECKING:
    from graphmem.client import Memory


class LaterMemory:
    """Stands for ``Memory(settings)``: the first use makes it (once, under a lock), and every
    attribute is the made client's."""

    def __init__(self, settings: Settings) -> None:
        self._settings = settings
        self._lock = threading.Lock()
        self._memory: Memory | None = None

    def get(self) -> Memory:
        with self._lock:
            if self._memory is None:
                from graphmem.client import Memory

                self._memory = Memory(self._settings)
            return self._memory

    def warm_up(self) -> float:
        """Make the client and load what a search uses (``Memory.warm_up``)."""
        return self.get().warm_up()

    def close(self) -> None:
        """Close the client if it was made; nothing to do otherwise."""
        with self._lock:
            if self._memory is not None:
                self._memory.close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.get(), name)
