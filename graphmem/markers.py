"""The marker around recalled context, so that what graphmem hands an agent is never stored
again as if someone had said it.

Every context rendered for injection into a prompt (:func:`mark`: the adapters' context, the
``search_memory`` tool, the MCP search tool, the coding-agent hooks, REST's
``marked_context``) is wrapped in one block::

    <graphmem-context>
    ...the packed memories...
    </graphmem-context>

Every write path (``ingest``, ``add_messages``, ``correct``, REST, MCP, the adapters) passes
incoming texts through :func:`strip_marked` first. A block is an opening tag and the next
closing tag after it, in the same text or in a later text of the same call (a context split
over several messages of one ``add_messages`` call, or over turns of one session of a file).
An opening tag with no closing tag after it, a closing tag with no opening one before it, and
the marker's name in prose are text like any other and are kept: only a whole block is
removed, so nothing a person wrote is lost to a stray tag. Tags are matched ignoring case.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from graphmem.text import count_tokens

NAME = "graphmem-context"
OPEN = f"<{NAME}>"
CLOSE = f"</{NAME}>"
_OPEN = re.compile(re.escape(OPEN), re.IGNORECASE)
_CLOSE = re.compile(re.escape(CLOSE), re.IGNORECASE)


def mark_tokens() -> int:
    """Tokens the marker adds to a context (by the packing's count), so that a caller with a
    budget for the marked text searches with that much less."""
    return count_tokens(mark("x")) - count_tokens("x")


def mark(context: str) -> str:
    """``context`` wrapped in the marker; "" stays "" (nothing recalled, nothing to inject)."""
    body = context.strip()
    return f"{OPEN}\n{body}\n{CLOSE}" if body else ""


@dataclass
class Stripped:
    """Texts with their marked blocks removed, and what was removed."""

    texts: list[str]
    blocks: int = 0  # marked blocks removed
    emptied: list[int] = field(default_factory=list)  # positions of texts that held nothing else
    touched: list[int] = field(default_factory=list)  # positions of texts that lost a block


def strip_marked(texts: Sequence[str]) -> Stripped:
    """Remove every marked block from ``texts`` read in order as one stream (a block may open
    in one text and close in a later one). A text left empty by the removal is listed in
    ``emptied``; a text that was empty already is not."""
    has_close = [bool(_CLOSE.search(t)) for t in texts]
    closes_after = [any(has_close[i + 1:]) for i in range(len(texts))]
    out = Stripped(texts=[])
    inside = False
    for i, text in enumerate(texts):
        kept: list[str] = []
        pos, touched = 0, inside
        while pos <= len(text):
            if inside:
                end = _CLOSE.search(text, pos)
                if end is None:
                    break  # the whole rest of this text is inside the block
                inside, pos = False, end.end()
                continue
            start = _OPEN.search(text, pos)
            if start is None or not (_CLOSE.search(text, start.end()) or closes_after[i]):
                kept.append(text[pos:])  # no block opens here (a lone tag is text)
                break
            kept.append(text[pos:start.start()])
            out.blocks += 1
            inside, touched, pos = True, True, start.end()
        if not touched:
            out.texts.append(text)
            continue
        joined = "\n".join(piece.strip() for piece in kept if piece.strip())
        out.texts.append(joined)
        out.touched.append(i)
        if not joined and text.strip():
            out.emptied.append(i)
    return out


def strip_text(text: str) -> tuple[str, int]:
    """One text with its marked blocks removed, and how many there were."""
    done = strip_marked([text])
    return done.texts[0], done.blocks
