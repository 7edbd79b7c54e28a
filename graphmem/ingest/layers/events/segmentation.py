"""ES-Mem event segmentation (seed 000): topic coherence, then intent refinement.

Stage 1 measures how strongly adjacent turns are coupled by the Gaussian mutual information
I = -1/2 log(1 - rho^2) of their vectors' dimensions; cuts whose I lies in the lowest quantile
q are candidates. With an LLM, each turn is described by a short topic and keywords
(conditioned on the previous turn's description) and the descriptions are embedded. LLM-free,
the turns' own vectors are used, those the turns layer stores: nothing is embedded again.
Embedding a topic line per turn instead ("topic (keywords): text", ``stage_one="topics"``)
cost 2.3x the turns' word pieces and scored no better (``studies/segmentation_signals.py``).

Stage 2 looks at the L turns either side of each candidate and keeps it when the probability
that the right side opens a new event, p_eb, reaches a threshold. With an LLM, p_eb comes from
its most and least fitting intent labels (see :mod:`graphmem.prompts.intent`); without one,
from a logistic model over features of the two windows (:mod:`boundary_model`), whose
similarities come from the turn vectors too.

A boundary is the index of the turn that starts a new event (0 is never one).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial

import numpy as np

from graphmem.ingest.layers.events.boundary_model import BoundaryModel, cut_features, load_model
from graphmem.ingest.layers.events.topics import MAX_KEYWORDS, TurnTopic, rule_topics, topic_texts
from graphmem.prompts import intent, turn_topic
from graphmem.providers.embedder import Embedder, Vectors
from graphmem.providers.llm import LLM


@dataclass(frozen=True)
class SegmentationConfig:
    q: float = 0.35  # Stage 1: candidates are cuts in this lowest quantile of I
    context: int = 2  # Stage 2: L turns either side of a candidate
    tau: float = 0.75  # Stage 2 threshold on p_eb for the LLM's labels
    tau_rules: float | None = None  # threshold for the LLM-free model; None: its calibrated one
    refine: bool = True  # False: Stage 1 alone (every candidate is a boundary)
    stage_one: str = "turns"  # LLM-free Stage 1 on the turn vectors, or "topics": topic lines


DEFAULT = SegmentationConfig()


@dataclass
class Segmentation:
    """The outcome for one sequence of turns."""

    boundaries: list[int]
    candidates: list[int]
    mutual_information: list[float]
    topics: list[TurnTopic]
    p_eb: dict[int, float] = field(default_factory=dict)
    fallbacks: int = 0
    notes: list[str] = field(default_factory=list)


def pearson_mi(vectors: Vectors) -> np.ndarray:
    """I_t = -1/2 log(1 - rho_t^2) for each adjacent pair (t, t+1); rho is the Pearson
    correlation of the two vectors' dimensions. One value per cut: len(vectors) - 1."""
    if len(vectors) < 2:
        return np.zeros(0)
    centred = vectors - vectors.mean(axis=1, keepdims=True)
    norms = np.linalg.norm(centred, axis=1)
    norms[norms == 0] = 1.0
    unit = centred / norms[:, None]
    rho = np.clip(np.sum(unit[:-1] * unit[1:], axis=1), -0.999999, 0.999999)
    return np.asarray(-0.5 * np.log1p(-(rho**2)), dtype=np.float64)


def candidate_cuts(mi: np.ndarray, q: float) -> list[int]:
    """Boundaries (turn indices) where I is at or below its q-quantile in this sequence."""
    if len(mi) == 0:
        return []
    threshold = float(np.quantile(mi, q))
    return [t + 1 for t, value in enumerate(mi) if value <= threshold]


def stage_one(texts: Sequence[str], topics: Sequence[TurnTopic],
              embedder: Embedder) -> tuple[np.ndarray, Vectors]:
    """MI per cut over the embedded topic lines (``stage_one="topics"``), and their vectors."""
    if not texts:
        return np.zeros(0), np.zeros((0, embedder.dimensions), dtype=np.float32)
    vectors = embedder.embed(topic_texts(texts, topics))
    return pearson_mi(vectors), vectors


def llm_topics(texts: Sequence[str], llm: LLM, fallbacks: list[str]
               ) -> tuple[list[TurnTopic], set[int]]:
    """Stage 1 topics from the LLM, each conditioned on the previous turn and its label; a
    turn whose reply is unusable gets the rule topic (recorded in ``fallbacks``). Returns the
    topics and the indices of the turns that fell back."""
    rules = rule_topics(texts)
    out: list[TurnTopic] = []
    fell_back: set[int] = set()

    def accept(reply: turn_topic.TopicOutput) -> TurnTopic:
        words = tuple(dict.fromkeys(k.strip().lower() for k in reply.keywords if k.strip()))
        return TurnTopic(reply.topic.strip(), words[:MAX_KEYWORDS])

    def rule(i: int) -> TurnTopic:
        fell_back.add(i)
        return rules[i]

    for i, text in enumerate(texts):
        request = turn_topic.messages(texts[i - 1] if i else "",
                                      out[-1].describe() if out else "", text)
        out.append(turn_topic.STEP.run(llm, request, accept=accept,
                                       fallback=partial(rule, i), notes=fallbacks,
                                       where=f"turn {i}"))
    return out, fell_back


def segment(texts: Sequence[str], embedder: Embedder, config: SegmentationConfig = DEFAULT,
            llm: LLM | None = None, model: BoundaryModel | None = None,
            turn_vectors: Vectors | None = None) -> Segmentation:
    """Both stages over one sequence of turns (a session). ``turn_vectors`` holds a row per
    turn (the turns layer's own vectors); without them ``embedder`` embeds the texts.
    ``embedder`` also embeds whatever topic descriptions Stage 1 reads (the LLM's, or the
    topic lines of ``stage_one="topics"``)."""
    fallbacks: list[str] = []
    known: list[Vectors] = []

    def vectors() -> Vectors:
        if not known:
            known.append(embedder.embed(list(texts)) if turn_vectors is None else turn_vectors)
        return known[0]

    if llm is not None:
        topics, fell_back = llm_topics(texts, llm, fallbacks)
        # LLM topics are embedded alone; a turn that fell back is embedded as the rules do
        rule_lines = topic_texts(texts, topics)
        mi = pearson_mi(embedder.embed([rule_lines[i] if i in fell_back
                                        else t.describe() or texts[i]
                                        for i, t in enumerate(topics)]))
    else:
        topics = rule_topics(texts)
        mi = stage_one(texts, topics, embedder)[0] if config.stage_one == "topics" \
            else pearson_mi(vectors())
    candidates = candidate_cuts(mi, config.q)
    result = Segmentation(list(candidates), candidates, [float(v) for v in mi], topics)
    if config.refine and candidates:
        result.p_eb = (_refine_llm(texts, candidates, config, llm, fallbacks, vectors, topics,
                                   mi, model) if llm is not None
                       else _refine_rules(texts, candidates, config, vectors(), topics, mi, model))
        threshold = config.tau if llm is not None else _rules_threshold(config, model)
        result.boundaries = [c for c in candidates if result.p_eb[c] >= threshold]
    result.fallbacks = len(fallbacks)
    result.notes = fallbacks
    return result


def _rules_threshold(config: SegmentationConfig, model: BoundaryModel | None) -> float:
    if config.tau_rules is not None:
        return config.tau_rules
    return (model or load_model()).threshold


def _refine_rules(texts: Sequence[str], candidates: Sequence[int], config: SegmentationConfig,
                  vectors: Vectors, topics: Sequence[TurnTopic], mi: np.ndarray,
                  model: BoundaryModel | None) -> dict[int, float]:
    model = model or load_model()
    return {c: model.probability(cut_features(c, texts, vectors, topics, mi, config.context))
            for c in candidates}


def _refine_llm(texts: Sequence[str], candidates: Sequence[int], config: SegmentationConfig,
                llm: LLM, fallbacks: list[str], vectors: Callable[[], Vectors],
                topics: Sequence[TurnTopic], mi: np.ndarray,
                model: BoundaryModel | None) -> dict[int, float]:
    """p_eb from the LLM's labels; a candidate whose reply is unusable is decided by the rule
    model instead (on its own scale: its threshold is mapped onto tau)."""
    requests = [intent.messages(texts[max(0, c - config.context): c],
                                texts[c: c + config.context]) for c in candidates]
    replies = intent.STEP.run_batch(llm, requests, accept=lambda reply: reply.p_eb(),
                                    notes=fallbacks, where=lambda i: f"cut {candidates[i]}")
    out = {cut: p for cut, p in zip(candidates, replies, strict=True) if p is not None}
    failed = [cut for cut in candidates if cut not in out]
    if failed:
        rules = _refine_rules(texts, failed, config, vectors(), topics, mi, model)
        threshold = _rules_threshold(config, model)
        for cut, p in rules.items():  # same decision as the rules path would take
            out[cut] = config.tau if p >= threshold else min(p, config.tau - 1e-6)
    return out
