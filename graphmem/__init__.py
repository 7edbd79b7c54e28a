"""graphmem: long-term memory for conversational agents, on Neo4j.

    from graphmem import Memory, AsyncMemory, Settings

What every operation returns is a type of :mod:`graphmem.models`, exported here; the
operations themselves are listed once in :mod:`graphmem.operations`.

The names are imported on first use, so that a module of the package (a coding-agent hook,
one framework adapter) starts without loading the client, the Neo4j driver and the models.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from graphmem.async_client import AsyncMemory
    from graphmem.client import Memory
    from graphmem.config import Settings
    from graphmem.errors import GraphmemError, InputError
    from graphmem.ingest.live import Message
    from graphmem.models import (
        Answer,
        ConversationRecord,
        CorrectReport,
        ForgetReport,
        Hit,
        IngestReport,
        LayerTally,
        LiveReport,
        MessagePage,
        ReembedReport,
        ReembedTally,
        SearchResult,
        SessionRecord,
        SpaceChange,
        SpaceFileReport,
        StoredConversation,
        StoredMessage,
        StoredUnit,
        TurnRecord,
    )
    from graphmem.operations import OPERATIONS

_MODELS = ("Answer", "ConversationRecord", "CorrectReport", "ForgetReport", "Hit",
           "IngestReport", "LayerTally", "LiveReport", "MessagePage", "ReembedReport",
           "ReembedTally", "SearchResult", "SessionRecord", "SpaceChange", "SpaceFileReport",
           "StoredConversation", "StoredMessage", "StoredUnit", "TurnRecord")
_HOMES = {"AsyncMemory": "graphmem.async_client", "Memory": "graphmem.client",
          "Settings": "graphmem.config", "GraphmemError": "graphmem.errors",
          "InputError": "graphmem.errors", "Message": "graphmem.ingest.live",
          "OPERATIONS": "graphmem.operations", **dict.fromkeys(_MODELS, "graphmem.models")}

__all__ = ["OPERATIONS", "Answer", "AsyncMemory", "ConversationRecord", "CorrectReport",
           "ForgetReport", "GraphmemError", "Hit", "IngestReport", "InputError", "LayerTally",
           "LiveReport", "Memory", "Message", "MessagePage", "ReembedReport", "ReembedTally",
           "SearchResult", "SessionRecord", "Settings", "SpaceChange", "SpaceFileReport",
           "StoredConversation", "StoredMessage", "StoredUnit", "TurnRecord"]
__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module 'graphmem' has no attribute {name!r}")
    value = getattr(import_module(_HOMES[name]), name)
    globals()[name] = value  # imported once
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
