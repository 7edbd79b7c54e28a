"""The read path: strategies (one registry of named recipes), packing into a budget."""

from graphmem.retrieve.base import Query, RetrievalContext, Strategy
from graphmem.retrieve.packing import count_tokens, pack
from graphmem.retrieve.registry import RECIPES, get_strategy, strategy_names

__all__ = ["RECIPES", "Query", "RetrievalContext", "Strategy", "count_tokens", "get_strategy",
           "pack", "strategy_names"]
