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


# what packing did with a hit, for an explanation: (shown, its cost, tokens used after it, or
# left when it was offered)
Step = tuple[bool, int, int]


def pack(hits: Sequence[Hit], budget: int, trace: list[Step] | None = None) -> Packed:
    """Greedy, rank-ordered packing of hits into ``budget`` tokens (``trace``, when given,
    gets a :data:`Step` per hit)."""
    lines: list[str] = []
    included: list[str] = []
    used = 0
    for hit in hits:
        cost = count_tokens(hit.text)
        shown = cost > 0 and used + cost <= budget
        if shown:
            lines.append(hit.text)
            included.append(hit.id)
            used += cost
        if trace is not None:
            trace.append((shown, cost, used if shown else budget - used))
    return Packed("\n".join(lines), included, used)
