"""graphmem: long-term memory for conversational agents, on Neo4j.

    from graphmem import Memory, Settings
"""

from graphmem.client import Memory
from graphmem.config import Settings
from graphmem.errors import GraphmemError, InputError
from graphmem.models import Answer, Hit, SearchResult

__all__ = ["Answer", "GraphmemError", "Hit", "InputError", "Memory", "SearchResult", "Settings"]
__version__ = "0.1.0"
