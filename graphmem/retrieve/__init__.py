"""The read path: strategies, fusion, packing into a budget, answering."""

from graphmem.retrieve.context import count_tokens, pack
from graphmem.retrieve.strategies import RetrievalContext, get_strategy, strategy_names

__all__ = ["RetrievalContext", "count_tokens", "get_strategy", "pack", "strategy_names"]
