"""The Python client: ``Memory`` ingests conversations and retrieves what answers a question.

    from graphmem import Memory
    with Memory() as memory:                       # settings from GRAPHMEM_* variables
        memory.ingest("chat.json", space="alice")
        result = memory.search("Where did Alice travel in May?", space="alice", budget=1000)
        print(result.context)
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from graphmem.admin import SpaceAdmin
from graphmem.config import Settings
from graphmem.errors import ConfigurationError, InputError
from graphmem.ids import check_space
from graphmem.ingest.inputs.fields import Where, check_record, strip_recalled, unique
from graphmem.ingest.inputs.loaders import BadTurnPolicy, Format, parse_file
from graphmem.ingest.layer import LayerContext
from graphmem.ingest.layers import parse_names, run_order, with_needs
from graphmem.ingest.live import Message
from graphmem.ingest.live_writer import LiveWriter
from graphmem.ingest.parallel import write_parallel, write_spaces
from graphmem.ingest.stored import stored_conversations
from graphmem.ingest.writer import GraphWriter
from graphmem.models import Answer, ConversationRecord, IngestReport, LiveReport, SearchResult
from graphmem.prompts import answer as answer_prompt
from graphmem.providers.embedder import (
    Embedder,
    MemoEmbedder,
    configured_embedder,
)
from graphmem.providers.llm import LLM, OpenAICompatibleLLM, TokenUsage
from graphmem.providers.nlp import preload as preload_nlp
from graphmem.retrieve.base import (
    Query,
    RetrievalContext,
    check_question,
    same_budget,
    search_budget,
    space_state,
)
from graphmem.retrieve.explaining import Explaining, explained
from graphmem.retrieve.ppr import ProjectionCache
from graphmem.retrieve.registry import get_strategy
from graphmem.retrieve.space_cache import SpaceCaches
from graphmem.store import GraphStore
from graphmem.telemetry import stage, timed


class Memory(SpaceAdmin):
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
        self.embedder = embedder or configured_embedder(self.settings)
        live_embedder = MemoEmbedder(self.embedder)
        self.live = LiveWriter(self.store, self.settings,
                               lambda: self._layer_context(live_embedder))
        self._llm = llm
        self._llm_given = llm is not None
        self.progress = progress
        self._schema_ready = self._vectors_checked = False
        self.layer_names = parse_names(self.settings.ingest_layers)  # fails early on typos
        self.projections = ProjectionCache(self.settings.max_projections,
                                           self.settings.projection_grace)
        self.caches = SpaceCaches()  # what searches keep of each space, keyed by its revision

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Finish deriving live messages, then release the driver."""
        self.live.close()
        self.store.close()

    @property
    def llm(self) -> LLM | None:
        if self._llm is None and self.settings.llm_configured:
            self._llm = OpenAICompatibleLLM(self.settings)
        return self._llm

    def warm_up(self) -> float:
        """Load the models a search uses and open the connection; returns the seconds spent.
        Searches never include this one-time cost in their latency once it is paid."""
        from concurrent.futures import ThreadPoolExecutor

        from graphmem.providers.nlp import parse
        from graphmem.retrieve.cues import date_span
        from graphmem.retrieve.fused import warm_up as warm_fused

        began = time.perf_counter()
        steps: list[Callable[[], object]] = [
            lambda: parse(["Maya warmed up on 1 May 2023."]),
            lambda: self.embedder.embed(["warm up"]),
            lambda: date_span("1 May 2023"),  # dateparser's languages load on first use
            warm_fused, self._check_vectors]
        # side by side: while one waits on Neo4j or runs ONNX Runtime's native code, another
        # imports; a new process answers sooner than with the five in a row
        with ThreadPoolExecutor(len(steps), thread_name_prefix="graphmem-warm") as pool:
            for done in [pool.submit(step) for step in steps]:
                done.result()
        return time.perf_counter() - began

    def ensure_schema(self) -> None:
        """Create missing constraints and indexes, then check the vector indexes."""
        if not self._schema_ready:
            self.store.apply_schema()
            self.store.run_autocommit("admin/upgrade_session_layers")
            self._schema_ready = True
        self._check_vectors()

    def _check_vectors(self) -> None:
        if not self._vectors_checked:
            self.store.check_vector_indexes(self.embedder)
            self._vectors_checked = True

    def _vectors_changed(self) -> None:
        self._vectors_checked = False  # the indexes may have a new dimension now

    def _layer_context(self, embedder: Embedder | None = None) -> LayerContext:
        return LayerContext(self.store, embedder or self.embedder,
                            self.llm if self.settings.llm_ingest else None,
                            batch_size=self.settings.write_batch_size, progress=self.progress,
                            settings=self.settings)

    # ------------------------------------------------------------------ write path
    def ingest(
        self,
        source: str | Path | Sequence[ConversationRecord],
        *,
        space: str,
        format: Format | Literal["auto"] = "auto",
        skip_invalid: bool = False,
        bad_turns: BadTurnPolicy = "error",
        layers: str | Sequence[str] | None = None,
        workers: int | None = None,
    ) -> IngestReport:
        """Store a file (or parsed records) in ``space``.

        The whole input is validated before anything is written. With invalid records and
        ``skip_invalid=False`` nothing is written and the first error is raised (all are in
        its ``__notes__``); with ``skip_invalid=True`` the valid records are written and the
        errors are listed in the report. Each conversation is written in one transaction,
        with its raw turns and the ``layers`` named (default ``GRAPHMEM_INGEST_LAYERS``), each
        after the layers it needs. ``workers`` processes (default ``GRAPHMEM_INGEST_WORKERS``)
        compute and write conversations at once; the graph is the same.
        """
        check_space(space)
        names = ["turns", *parse_names(self.settings.ingest_layers if layers is None
                                       else layers)]
        report = IngestReport(space=space)
        if isinstance(source, (str, Path)):
            parsed = parse_file(Path(source), format, max_turn_chars=self.settings.max_turn_chars,
                                max_bytes=int(self.settings.max_input_mb * 2**20),
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
            conversations = self._check_records(source, bad_turns, report)
        conversations = strip_recalled(conversations, report)
        if not conversations:
            return report
        self.ensure_schema()
        order = run_order(names)
        workers = min(workers or self.settings.ingest_workers, len(conversations))
        if workers > 1:
            self._check_worker_models()
            return write_parallel(self.settings, space, conversations, order, workers, report,
                                  progress=self.progress)
        writer = GraphWriter(self._layer_context(), order, "ingest")
        return writer.write(space, conversations, report)

    def ingest_spaces(
        self,
        records: Mapping[str, Sequence[ConversationRecord]],
        *,
        layers: str | Sequence[str] | None = None,
        workers: int | None = None,
        stored: Callable[[str, IngestReport], None] | None = None,
    ) -> dict[str, IngestReport]:
        """Store the records of several spaces (``{space: records}``), for example one
        LongMemEval haystack per space, ``workers`` processes at once over all of them (default
        ``GRAPHMEM_INGEST_WORKERS``). ``stored(space, report)`` is called as each conversation
        commits, so a caller can keep a resumable record of what is done."""
        for space in records:
            check_space(space)
        reports = {space: IngestReport(space=space) for space in records}
        checked = {space: strip_recalled(self._check_records(recs, "error", reports[space]),
                                         reports[space])
                   for space, recs in records.items()}
        names = ["turns", *parse_names(self.settings.ingest_layers if layers is None
                                       else layers)]
        self.ensure_schema()
        order = run_order(names)
        jobs = [(space, conv) for space, convs in checked.items() for conv in convs]
        workers = min(workers or self.settings.ingest_workers, len(jobs))

        def done(space: str, _key: str, one: IngestReport) -> None:
            reports[space].absorb(one)
            reports[space].seconds += one.seconds
            if stored is not None:
                stored(space, one)

        if workers > 1:
            self._check_worker_models()
            write_spaces(self.settings, jobs, order, workers, done, progress=self.progress)
            return reports
        writer = GraphWriter(self._layer_context(), order)
        for space, conv in jobs:
            one = writer.write(space, [conv])
            done(space, conv.key, one)
        return reports

    def _check_worker_models(self) -> None:
        """Worker processes load the models the settings name: a client given other ones
        must ingest in one process, or the workers would write other vectors."""
        configured = configured_embedder(self.settings)  # loads nothing yet
        if type(self.embedder) is not type(configured) or self.embedder.name != configured.name \
                or self._llm_given:
            raise ConfigurationError(
                "ingest workers load the embedder and LLM that the settings name; this client "
                "was given its own, so ingest with workers=1")

    def _check_records(self, records: Sequence[ConversationRecord], bad_turns: BadTurnPolicy,
                       report: IngestReport) -> list[ConversationRecord]:
        """Records built in code obey the same rules as a file's."""
        if isinstance(records, (str, bytes)) or not isinstance(records, Sequence):
            raise InputError("expected a file path or a list of ConversationRecord, got "
                             f"{type(records).__name__}", field="source")
        if not records:
            raise InputError("no conversations to ingest", field="source")
        checked = [check_record(record, Where("(records)", f"#{i}", self.settings.max_turn_chars,
                                              bad_turns, report.warnings))
                   for i, record in enumerate(records)]
        unique([c.key for c in checked], Where("(records)", "*", 0, bad_turns, []), "key",
               "conversation")
        return checked

    def add_layers(self, space: str, layers: str | Sequence[str]) -> IngestReport:
        """Compute ``layers`` (and the layers they need that the space lacks) for everything
        ``space`` holds, from its stored turns; layers it holds already are read, not redone."""
        check_space(space)
        self.ensure_schema()
        wanted = [name for name in parse_names(layers) if name != "turns"]
        involved = with_needs(wanted)
        state = space_state(self.store, space, tuple(involved))
        if state.sessions == 0:
            raise InputError(f"space {space!r} holds no conversations; ingest a file first",
                             field="space")
        present = [n for n in involved if n not in state.missing]
        order = [n for n in run_order(wanted, present=present) if n != "turns"]
        report = IngestReport(space=space)
        if order:
            writer = GraphWriter(self._layer_context(), order, "layers added")
            writer.write(space, stored_conversations(self.store, space), report)
        return report

    def add_messages(
        self, space: str, conversation: str,
        messages: Sequence[Message | Mapping[str, Any]], *, session: str | None = None,
        layers: str | Sequence[str] | None = None,
    ) -> LiveReport:
        """Append ``messages`` to the open session of ``conversation`` in ``space`` (a new
        session after ``GRAPHMEM_LIVE_SESSION_GAP_MINUTES`` of silence), or to the session
        keyed ``session``. A message whose ``id`` is stored already is skipped. The new turns
        are searchable when this returns; the derived layers catch up as
        ``GRAPHMEM_LIVE_DERIVE`` says (default: in a background thread, a moment later; see
        :mod:`graphmem.ingest.live_writer`)."""
        self.ensure_schema()
        return self.live.add(space, conversation, messages, session, layers)

    def refresh(self, space: str, conversation: str | None = None) -> dict[str, list[str]]:
        """Derive, now, the layers live messages left pending in one conversation (or all of
        ``space``); returns the layers derived per conversation key."""
        return self.live.refresh(space, conversation)

    def flush(self, timeout: float | None = None) -> bool:
        """Wait until the background derivation of live messages is idle (True) or
        ``timeout`` seconds pass (False)."""
        return self.live.flush(timeout)

    # ------------------------------------------------------------------ read path
    def search(
        self,
        /,  # an override may be named anything (see below); never "self"
        question: str,
        *,
        space: str,
        strategy: str | None = None,
        budget: int | None = None,
        max_tokens: int | None = None,
        explain: bool = False,
        marked: bool = False,
        **overrides: Any,
    ) -> SearchResult:
        """Ranked hits for ``question`` from ``space`` and the context they make in ``budget``
        tokens (``max_tokens`` is another name for it). With ``explain``, each hit says why
        it was recalled (``Hit.why``) and ``explanation`` how the strategy ranked and which
        of the best candidates it left out; what is returned is otherwise the same. With
        ``marked``, the budget is for the context in its ``<graphmem-context>`` marker (what
        a prompt is given): the context is packed in the budget less the marker's tokens."""
        check_space(space)
        check_question(question, self.settings.max_turn_chars)
        if strategy is not None and not isinstance(strategy, str):
            raise InputError(f"the strategy is named by a string, got "
                             f"{type(strategy).__name__}", field="strategy")
        name = strategy or self.settings.default_strategy
        for flag, given in (("explain", explain), ("marked", marked)):
            if not isinstance(given, bool):
                raise InputError(f"{flag} is true or false, got {given!r}", field=flag)
        budget = search_budget(budget, max_tokens, self.settings.default_budget, marked)
        chosen = get_strategy(name, **overrides)
        preload_nlp()  # a first search parses the question last: load spaCy meanwhile
        self._check_vectors()
        began = time.perf_counter()
        llm = self.llm if self.settings.llm_retrieval else None
        explaining = Explaining() if explain else None
        context = RetrievalContext(self.store, self.embedder, Query(question, self.embedder),
                                   self.projections, llm, self.caches, explaining)
        with timed() as timings, stage("graphmem.search", space=space, strategy=name,
                                       budget=budget):
            hits = chosen.search(context, space, budget)
            packed = chosen.pack(hits, budget)
            why = None
            if explaining is not None:
                with stage("explain"):
                    hits, why = explained(name, hits, budget, explaining)
        latency = (time.perf_counter() - began) * 1000
        if why is not None:
            why.ms = round(timings["explain"], 2)
        note = "" if hits or self.has_space(space) else (
            f"space {space!r} holds nothing: no message was stored there (the spaces that "
            "exist: `graphmem spaces`)")
        return SearchResult(question=question, space=space, strategy=name, budget=budget,
                            hits=hits, context=packed.context, context_tokens=packed.tokens,
                            included=packed.included, omitted=len(hits) - len(packed.included),
                            latency_ms=latency, note=note, explanation=why,
                            timings_ms={k: round(v, 2) for k, v in timings.items()
                                        if k != "graphmem.search"})

    def answer(
        self, question: str, *, space: str, strategy: str | None = None,
        budget: int | None = None, today: str | None = None, max_tokens: int | None = None,
    ) -> Answer:
        """Search, then answer from the context with the configured LLM (``max_tokens``: the
        search's budget, as in :meth:`search`)."""
        budget = same_budget(budget, max_tokens)
        llm = self.llm
        if llm is None:
            raise ConfigurationError("answer() needs an LLM: set GRAPHMEM_LLM_BASE_URL "
                                     "(and GRAPHMEM_LLM_MODEL / GRAPHMEM_LLM_API_KEY)")
        result = self.search(question, space=space, strategy=strategy, budget=budget)
        why: list[str] = []
        reply = answer_prompt.STEP.run(
            llm, lambda: answer_prompt.messages(question, result.context, today),
            accept=lambda out: out.answer,
            # the LLM-free answer: the best memory found (the highest score: `graphmem` lists
            # its hits in time order), marked as a fallback below
            fallback=lambda: max(result.hits, key=lambda h: h.score).text if result.hits
            else "", notes=why)
        return Answer(question=question, answer=reply, search=result, model=llm.model,
                      fallback=why[0] if why else None)

    def llm_usage(self) -> dict[str, TokenUsage]:
        """Calls, tokens, failures and fallbacks per LLM task so far (empty without an LLM)."""
        return self._llm.usage() if self._llm is not None else {}

