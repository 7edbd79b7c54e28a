"""Why a search returned what it did: the typed answer to ``search(..., explain=True)``.

Every surface that offers ``explain`` (``Memory``, ``AsyncMemory``, the CLI, REST, MCP, the
TypeScript client) sends these models as they are. A hit's :class:`Why` says who proposed
it, how the ranker weighed it and where packing put it; :class:`Explanation` says how the
strategy ranks, what it holds for the whole question, and which of the best candidates were
left out and why. Explaining changes nothing a search returns: the same hits in the same
order, the same context (``tests/integration/test_explain.py``).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

# sent by the servers with every field, defaults included (see graphmem.models.ANSWERED)
_SENT = ConfigDict(json_schema_serialization_defaults_required=True)


class Found(BaseModel):
    """One source that proposed a unit: its rank among that source's results and score."""

    model_config = _SENT

    source: str = Field(description=(
        "bm25, vector, units (MMS), edus (EMem), scenes (CAST), events (ES-Mem), episodes "
        "(EMA), kind (closeness to what a list question asks for), a plug-in's source, or "
        "a seed strategy's own name"))
    rank: int = Field(description="its place in that source's list, from 1")
    score: float = Field(description="the source's own score (BM25, cosine, summary score)")
    asked: str | None = Field(default=None, description=(
        "the part of the question that found it, when not the whole question"))


class Moved(BaseModel):
    """A feature of the ranker and how far it moved the unit's score."""

    model_config = _SENT

    feature: str = Field(description="the feature's name (docs/results-graphmem.md lists them)")
    value: float = Field(description="its value for this unit")
    effect: float = Field(description=(
        "what it added to the ranker's log-odds of evidence (negative: it counted against)"))


class Why(BaseModel):
    """Why one unit was recalled, or (in ``left_out``) why it was not."""

    model_config = _SENT

    found_by: list[Found] = Field(default_factory=list, description=(
        "the sources that proposed it, best rank first (empty when it came as a neighbour)"))
    near: list[str] = Field(default_factory=list, description=(
        "ids of the proposed turns it was brought in beside (the turn before or after)"))
    probability: float | None = Field(default=None, description=(
        "the ranker's probability that it is evidence (graphmem)"))
    mixed: float | None = Field(default=None, description=(
        "that probability mixed with its neighbours' (what packing read; graphmem)"))
    base: float | None = Field(default=None, description=(
        "the ranker's log-odds before any feature: base + every feature's effect is the "
        "log-odds of ``probability`` before blending (graphmem)"))
    moved_by: list[Moved] = Field(default_factory=list, description=(
        "the features that moved the ranker most, largest effect first"))
    tokens: int = Field(default=0, description="what it costs in the context")
    worth: float | None = Field(default=None, description=(
        "what packing ordered by: probability per token, tokens raised to the ranker's gamma"))
    packed: str = Field(default="", description=(
        "where packing put it and why, or why it was left out"))
    detail: dict[str, Any] = Field(default_factory=dict, description=(
        "what the strategy itself holds for it: a PageRank score, an event's context and "
        "summary scores, the segment it belongs to"))


class LeftOut(BaseModel):
    """A candidate the context does not show, among the best."""

    model_config = _SENT

    id: str
    kind: str
    text: str = Field(description="the unit as the context would have shown it")
    source_turn_ids: list[str]
    why: Why


class Explanation(BaseModel):
    """What a strategy did with one question, beyond its hits' own ``why``."""

    model_config = _SENT

    strategy: str
    how: str = Field(description="how the strategy ranks and packs, in a sentence or two")
    candidates: int = Field(description="units it weighed")
    detail: dict[str, Any] = Field(default_factory=dict, description=(
        "what it holds for the whole question: the ranker and its packing rule, the "
        "question's parts, PageRank's seeds"))
    left_out: list[LeftOut] = Field(default_factory=list, description=(
        "the best candidates not in the context, best first, each with why not"))
    ms: float = Field(default=0.0, description="milliseconds the explaining itself took")


def _found(f: Found) -> str:
    part = f" (for {f.asked!r})" if f.asked else ""
    return f"{f.source} #{f.rank} ({f.score:g}){part}"


def _why_lines(why: Why) -> list[str]:
    lines = []
    if why.found_by:
        lines.append("found by: " + ", ".join(_found(f) for f in why.found_by))
    if why.near:
        lines.append("beside: " + ", ".join(why.near))
    if why.probability is not None:
        mixed = f", {why.mixed:.3f} with its neighbours" if why.mixed is not None else ""
        lines.append(f"P(evidence) {why.probability:.3f}{mixed}")
    if why.moved_by:
        lines.append("moved by: " + ", ".join(f"{m.feature}={m.value:g} ({m.effect:+.2f})"
                                              for m in why.moved_by))
    if why.detail:
        lines.append("holds: " + ", ".join(f"{k}={v}" for k, v in why.detail.items()))
    lines.append(why.packed)
    return lines


def _first(text: str, width: int = 100) -> str:
    """A unit's first line that says something (not a session's ``[day]`` header), cut to
    ``width``, with "..." when the unit goes on."""
    lines = [line for line in text.splitlines() if line.strip()]
    said = [line for line in lines if not (line.startswith("[") and line.endswith("]"))]
    first = (said or lines or [""])[0]
    more = len(first) > width or len(said) > 1
    return first[:width] + (" ..." if more else "")


def describe(shown: list[tuple[str, str, Why | None]], explanation: Explanation,
             left_texts: bool = True) -> str:
    """An explanation as text (the CLI's ``--explain``, MCP's readable answer): each shown
    unit (id, text, why) numbered, then the best left out (without ``left_texts``, by id
    only: what a model reads stays what its budget holds)."""
    out = [f"Why these ({explanation.candidates} candidates weighed, {explanation.ms:g} ms "
           f"to explain) - {explanation.how}."]
    for n, (unit, text, why) in enumerate(shown, 1):
        out.append(f"[{n}] {_first(text)}\n    id {unit}")
        out += [f"    {line}" for line in (_why_lines(why) if why else [])]
    if explanation.left_out:
        out.append("Left out, best first:")
        for left in explanation.left_out:
            out.append(f"  - {_first(left.text)}\n    id {left.id}" if left_texts
                       else f"  - id {left.id}")
            out += [f"    {line}" for line in _why_lines(left.why)]
    return "\n".join(out)
