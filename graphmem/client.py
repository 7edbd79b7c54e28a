"""The Python client: ``Memory`` ingests conversations and retrieves what answers a question.

    from graphmem import Memory
    with Memory() as memory:                       # settings from GRAPHMEM_* variables
        memory.ingest("chat.json", space="alice")
        result = memory.search("Where did Alice travel in May?", space="alice", budget=1000)
        print(result.context)
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from graphmem.config import Settings
from graphmem.errors import ConfigurationError, InputError
from graphmem.ingest.ids import check_space
from graphmem.ingest.loaders import BadTurnPolicy, Format, parse_file
from graphmem.ingest.writer import GraphWriter, IngestReport, Layer
from graphmem.models import Answer, ConversationRecord, SearchResult
from graphmem.prompts import answer as answer_prompt
from graphmem.providers.embedder import Embedder, SentenceTransformerEmbedder
from graphmem.providers.llm import LLM, LLMError, OpenAICompatibleLLM, TokenUsage
from graphmem.retrieve.context import pack
from graphmem.retrieve.ppr import ProjectionCache
from graphmem.retrieve.strategies import RetrievalContext, get_strategy
from graphmem.store import GraphStore


class Memory:
    """graphmem's public entry point. Close it (or use ``with``) to release the driver."""

    def __init__(
        self,
        settings: Settings | None = None,
        *,
        store: GraphStore | None = None,
        embedder: Embedder | None = None,
        llm: LLM | None = None,
        progress: bool = False,
    ) -> None:
        self.settings = settings or Settings()
        self.store = store or GraphStore(self.settings)
        self.embedder = embedder or SentenceTransformerEmbedder.from_settings(self.settings)
        self._llm = llm
        self.progress = progress
        self._schema_ready = False
        self.projections = ProjectionCache(self.settings.max_projections)

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.store.close()

    @property
    def llm(self) -> LLM | None:
        if self._llm is None and self.settings.llm_configured:
            self._llm = OpenAICompatibleLLM(self.settings)
        return self._llm

    def ensure_schema(self) -> None:
        if not self._schema_ready:
            self.store.apply_schema()
            self._schema_ready = True

    def layers(self) -> list[Layer]:
        """The derived layers named by GRAPHMEM_INGEST_LAYERS."""
        from graphmem.ingest.edu_layer import EduLayer
        from graphmem.ingest.event_layer import EventLayer

        llm = self.llm if self.settings.llm_ingest else None
        known: dict[str, Any] = {"edus": lambda: EduLayer(self.embedder, llm),
                                 "events": lambda: EventLayer(self.embedder, llm)}
        chosen = [name.strip() for name in self.settings.ingest_layers.split(",") if name.strip()]
        unknown = [name for name in chosen if name not in known]
        if unknown:
            raise ConfigurationError(f"unknown ingest layers {unknown}; known: {sorted(known)}")
        return [known[name]() for name in chosen]

    # ------------------------------------------------------------------ write path
    def ingest(
        self,
        source: str | Path | Sequence[ConversationRecord],
        *,
        space: str,
        format: Format | Literal["auto"] = "auto",
        skip_invalid: bool = False,
        bad_turns: BadTurnPolicy = "error",
    ) -> IngestReport:
        """Store a file (or parsed records) in ``space``.

        The whole input is validated before anything is written. With invalid records and
        ``skip_invalid=False`` nothing is written and the first error is raised (all are in
        its ``__notes__``); with ``skip_invalid=True`` the valid records are written and the
        errors are listed in the report. Each conversation is written in one transaction.
        """
        check_space(space)
        report = IngestReport(space=space)
        if isinstance(source, (str, Path)):
            parsed = parse_file(Path(source), format, max_turn_chars=self.settings.max_turn_chars,
                                bad_turns=bad_turns)
            report.warnings.extend(parsed.warnings)
            if parsed.errors and not skip_invalid:
                first = parsed.errors[0]
                for other in parsed.errors[1:]:
                    first.add_note(str(other))
                raise first
            report.errors.extend(str(e) for e in parsed.errors)
            conversations: Sequence[ConversationRecord] = parsed.conversations
        else:
            conversations = source
        self.ensure_schema()
        writer = GraphWriter(self.store, self.embedder, batch_size=self.settings.write_batch_size,
                             progress=self.progress, layers=self.layers())
        return writer.write(space, conversations, report)

    # ------------------------------------------------------------------ read path
    def search(
        self,
        question: str,
        *,
        space: str,
        strategy: str | None = None,
        budget: int | None = None,
        **overrides: Any,
    ) -> SearchResult:
        """Ranked hits for ``question`` from ``space`` and the context they make in ``budget``."""
        check_space(space)
        if not isinstance(question, str) or not question.strip():
            raise InputError("the question is empty", field="question")
        name = strategy or self.settings.default_strategy
        budget = self.settings.default_budget if budget is None else budget
        if budget <= 0:
            raise InputError("the budget must be a positive number of tokens", field="budget")
        chosen = get_strategy(name, **overrides)
        began = time.perf_counter()
        llm = self.llm if self.settings.llm_retrieval else None
        context = RetrievalContext(self.store, self.embedder, self.projections, llm)
        hits = chosen.search(context, question, space, budget)
        packed = pack(hits, budget)
        latency = (time.perf_counter() - began) * 1000
        return SearchResult(question=question, space=space, strategy=name, budget=budget,
                            hits=hits, context=packed.context, context_tokens=packed.tokens,
                            included=packed.included, latency_ms=latency)

    def answer(
        self, question: str, *, space: str, strategy: str | None = None,
        budget: int | None = None, today: str | None = None,
    ) -> Answer:
        """Search, then answer from the context with the configured LLM."""
        llm = self.llm
        if llm is None:
            raise ConfigurationError("answer() needs an LLM: set GRAPHMEM_LLM_BASE_URL "
                                     "(and GRAPHMEM_LLM_MODEL / GRAPHMEM_LLM_API_KEY)")
        result = self.search(question, space=space, strategy=strategy, budget=budget)
        try:
            reply = llm.structured(answer_prompt.TASK,
                                   answer_prompt.messages(question, result.context, today),
                                   answer_prompt.AnswerOutput)
        except LLMError as exc:
            # the LLM-free answer: the best memory found, marked as such
            llm.record_fallback(answer_prompt.TASK)
            best = result.hits[0].text if result.hits else ""
            return Answer(question=question, answer=best, search=result, model=llm.model,
                          fallback=str(exc))
        return Answer(question=question, answer=reply.answer, search=result, model=llm.model)

    def llm_usage(self) -> dict[str, TokenUsage]:
        """Calls, tokens, failures and fallbacks per LLM task so far (empty without an LLM)."""
        return self._llm.usage() if self._llm is not None else {}

    # ------------------------------------------------------------------ spaces
    def spaces(self) -> list[dict[str, Any]]:
        return self.store.read("admin/list_spaces")

    def delete_space(self, space: str) -> None:
        """Remove everything stored for ``space`` and nothing else."""
        check_space(space)
        self.projections.drop_space(self.store, space)
        self.store.run_autocommit("admin/delete_space", space=space)
