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
closing tag after it *within one text*: only what graphmem rendered into one message or turn
is taken out, so a person's text is never removed because of what another message holds (an
opening tag in one participant's message and a closing tag in someone else's later one remove
nothing). A lone tag and the marker's name in prose are text like any other. Tags are matched
ignoring case.

What :func:`mark` wraps is recalled text, which may hold anything someone once said, tags of
the marker included: every tag-like form of the marker's name inside it is neutralised
(``<`` written ``&lt;``), so a stored closing tag cannot end the block early and leave the rest
of a memory outside it, where an agent would read it as its prompt's own text.
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
_ANY_TAG = re.compile(rf"<(?=\s*/?\s*{re.escape(NAME)}\b)", re.IGNORECASE)  # a tag's "<"


def mark_tokens() -> int:
    """Tokens the marker adds to a context (by the packing's count), so that a caller with a
    budget for the marked text searches with that much less."""
    return count_tokens(mark("x")) - count_tokens("x")


def mark(context: str) -> str:
    """``context`` wrapped in the marker, every tag of the marker inside it neutralised; ""
    stays "" (nothing recalled, nothing to inject)."""
    body = neutralise(context.strip())
    return f"{OPEN}\n{body}\n{CLOSE}" if body else ""


def neutralise(text: str) -> str:
    """``text`` with every tag-like form of the marker (any case, spacing or attributes)
    written so that it no longer reads as a tag."""
    return _ANY_TAG.sub("&lt;", text)


@dataclass
class Stripped:
    """Texts with their marked blocks removed, and what was removed."""

    texts: list[str]
    blocks: int = 0  # marked blocks removed
    emptied: list[int] = field(default_factory=list)  # positions of texts that held nothing else
    touched: list[int] = field(default_factory=list)  # positions of texts that lost a block


def strip_marked(texts: Sequence[str]) -> Stripped:
    """Remove every marked block from each of ``texts``, one text at a time (a block opens and
    closes within one text). A text left empty by the removal is listed in ``emptied``; a
    text that was empty already is not."""
    out = Stripped(texts=[])
    for i, text in enumerate(texts):
        kept: list[str] = []
        pos, blocks = 0, 0
        while True:
            start = _OPEN.search(text, pos)
            end = _CLOSE.search(text, start.end()) if start else None
            if start is None or end is None:
                kept.append(text[pos:])  # no whole block from here on: a lone tag is text
                break
            kept.append(text[pos:start.start()])
            blocks, pos = blocks + 1, end.end()
        if not blocks:
            out.texts.append(text)
            continue
        joined = "\n".join(piece.strip() for piece in kept if piece.strip())
        out.texts.append(joined)
        out.blocks += blocks
        out.touched.append(i)
        if not joined and text.strip():
            out.emptied.append(i)
    return out


def strip_text(text: str) -> tuple[str, int]:
    """One text with its marked blocks removed, and how many there were."""
    done = strip_marked([text])
    return done.texts[0], done.blocks


def strip_value(value: object) -> tuple[object, int]:
    """A JSON value (a message's payload) with the marked blocks removed from every string in
    it, and how many there were; lists, objects (their keys as given) and other values keep
    their shape."""
    if isinstance(value, str):
        return strip_text(value)
    if isinstance(value, list):
        done = [strip_value(v) for v in value]
        return [v for v, _ in done], sum(n for _, n in done)
    if isinstance(value, dict):
        pairs = {k: strip_value(v) for k, v in value.items()}
        return {k: v for k, (v, _) in pairs.items()}, sum(n for _, n in pairs.values())
    return value, 0


def recalled(pieces: Sequence[tuple[str, Sequence[str]]], budget: int | None = None,
             asked: str = "") -> str:
    """What a memory tool answers a model: the pieces of a context (each a unit's text and
    the memory ids of the messages it comes from), numbered, in one marked block, then each
    number's memory ids, so the model can tell which id to forget or correct. A piece that is
    one message saying just what was ``asked`` (the question itself, stored before the model
    called the tool) is left out: it tells the model nothing it has not got. With
    ``budget``, the marked block holds the first pieces that fit in that many tokens (the
    marker and the numbers counted); "" when none does."""
    pieces = [p for p in pieces if len(p[1]) != 1 or not _says(p[0], asked)]
    lines = [f"[{n}] {text}" for n, (text, _) in enumerate(pieces, 1)]
    while lines and budget is not None and count_tokens(mark("\n".join(lines))) > budget:
        lines.pop()
    if not lines:
        return ""
    ids = "; ".join(f"[{n}] {', '.join(dict.fromkeys(turns))}"
                    for n, (_, turns) in enumerate(pieces[:len(lines)], 1))
    return f"{mark(chr(10).join(lines))}\n\nmemory ids: {ids}"


def _says(line: str, asked: str) -> bool:
    """Whether a context's line says ``asked`` and nothing else (its day and speaker aside):
    the same words, ignoring case and punctuation."""
    said, words = re.findall(r"\w+", line.casefold()), re.findall(r"\w+", asked.casefold())
    return bool(words) and said[-len(words):] == words and len(said) - len(words) <= _HEAD


_HEAD = 6  # words before a message's text in its line: the day (3) and a speaker's name
