"""Plug-ins from other installed packages, found by entry points.

A package adds layers, strategies and Cypher folders by declaring an entry point in the
``graphmem.plugins`` group; graphmem loads every one the first time either registry (of
layers, ``graphmem.ingest.layers``; of strategies, ``graphmem.retrieve.registry``) is imported,
so the CLI, the Python client and the REST and MCP servers all see what is installed:

    [project.entry-points."graphmem.plugins"]
    qa_pairs = "qa_pairs"            # a module whose import registers what it adds
    # or "qa_pairs:plugin"           # a function, called once with no arguments

A plug-in that fails to load is logged (logger ``graphmem``) and listed by
:func:`failed_plugins` and ``graphmem plugins``; graphmem itself goes on without it.
"""

from __future__ import annotations

import logging
import threading
from importlib.metadata import entry_points
from types import ModuleType

GROUP = "graphmem.plugins"
log = logging.getLogger("graphmem")
_lock = threading.RLock()
_started = False
_loaded: dict[str, str] = {}  # entry point name -> its value ("module:attr")
_failed: dict[str, str] = {}  # entry point name -> what went wrong


def load_plugins() -> None:
    """Load every installed plug-in once. A plug-in's own imports of the registries (which
    call this again while it runs) return at once."""
    global _started
    with _lock:
        if _started:
            return
        _started = True
        for point in sorted(entry_points(group=GROUP), key=lambda p: p.name):
            try:
                found = point.load()
                if callable(found) and not isinstance(found, ModuleType):
                    found()
                _loaded[point.name] = point.value
            # one broken plug-in must not take graphmem down, even one that calls sys.exit
            # at import (only an interrupt from the user goes through)
            except (Exception, SystemExit) as exc:
                why = (f"it called sys.exit({exc.code!r}) while loading"
                       if isinstance(exc, SystemExit) else f"{type(exc).__name__}: {exc}")
                _failed[point.name] = why
                log.warning("graphmem plug-in %r (%s) was not loaded: %s", point.name,
                            point.value, why)


def loaded_plugins() -> dict[str, str]:
    """The plug-ins loaded, by entry point name, with what each names."""
    load_plugins()
    return dict(_loaded)


def failed_plugins() -> dict[str, str]:
    """The plug-ins that failed to load, by entry point name, with the error."""
    load_plugins()
    return dict(_failed)
