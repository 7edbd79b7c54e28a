"""graphmem: long-term memory for conversational agents, on Neo4j.

    from graphmem import Memory, AsyncMemory, Settings
"""

from graphmem.async_client import AsyncMemory
from graphmem.client import Memory
from graphmem.config import Settings
from graphmem.errors import GraphmemError, InputError
from graphmem.ingest.live import LiveReport, Message
from graphmem.models import Answer, Hit, SearchResult

__all__ = ["Answer", "AsyncMemory", "GraphmemError", "Hit", "InputError", "LiveReport", "Memory",
           "Message", "SearchResult", "Settings"]
__version__ = "0.1.0"
