"""graphmem: long-term memory for conversational agents, on Neo4j.

    from graphmem import Memory, AsyncMemory, Settings

What every operation returns is a type of :mod:`graphmem.models`, exported here; the
operations themselves are listed once in :mod:`graphmem.operations`.
"""

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

__all__ = ["OPERATIONS", "Answer", "AsyncMemory", "ConversationRecord", "CorrectReport",
           "ForgetReport", "GraphmemError", "Hit", "IngestReport", "InputError", "LayerTally",
           "LiveReport", "Memory", "Message", "MessagePage", "SearchResult", "SessionRecord",
           "Settings", "SpaceChange", "SpaceFileReport", "StoredConversation", "StoredMessage",
           "StoredUnit", "TurnRecord"]
__version__ = "0.1.0"
