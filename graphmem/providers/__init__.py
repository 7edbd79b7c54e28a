"""Providers: embedders and the LLM client (small protocols with batch methods)."""

from graphmem.providers.embedder import Embedder, HashEmbedder, SentenceTransformerEmbedder
from graphmem.providers.llm import LLM, LLMError, OpenAICompatibleLLM, TokenUsage

__all__ = [
    "LLM",
    "Embedder",
    "HashEmbedder",
    "LLMError",
    "OpenAICompatibleLLM",
    "SentenceTransformerEmbedder",
    "TokenUsage",
]
