"""Token counting and budget packing: the fixed rules every strategy is measured by.

Tokens are matches of ``\\w+|[^\\w\\s]``. A context is the ranked units rendered one after
another (one per line); a unit that does not fit in what is left of the budget is skipped
and the next one is tried.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from graphmem.models import Hit
from graphmem.text import count_tokens as count_tokens  # where the budgets count, too


@dataclass(frozen=True)
class Packed:
    context: str
    included: list[str]
    tokens: int


def pack(hits: Sequence[Hit], budget: int) -> Packed:
    """Greedy, rank-ordered packing of hits into ``budget`` tokens."""
    lines: list[str] = []
    included: list[str] = []
    used = 0
    for hit in hits:
        cost = count_tokens(hit.text)
        if cost == 0 or used + cost > budget:
            continue
        lines.append(hit.text)
        included.append(hit.id)
        used += cost
    return Packed("\n".join(lines), included, used)
