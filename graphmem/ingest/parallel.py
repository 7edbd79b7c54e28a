"""Ingest conversations in parallel worker processes (``graphmem ingest --workers N``).

Each worker process loads its own models and driver once, then computes and writes whole
conversations, one transaction each, exactly as a single process does. The writers of one
space take turns at commit (``ingest/lock_space``), and what a layer decides from the rest of
the space (which arguments are new, their synonyms) is decided inside its transaction, so
the graph is that of a one-process ingest in commit order. Worker processes are spawned (not
forked: the driver and the models hold threads) and share the machine's cores: each gets
``cores / N`` threads for the embedding model. Workers load the models the settings name
(``GRAPHMEM_EMBEDDING_*``, ``GRAPHMEM_LLM_*``). A worker whose parent process is killed ends
itself (its open transaction is rolled back), so a killed ingest leaves nothing writing.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from typing import Any

from tqdm import tqdm

from graphmem.config import Settings
from graphmem.ingest.layer import LayerContext
from graphmem.ingest.writer import GraphWriter
from graphmem.models import ConversationRecord, IngestReport
from graphmem.providers.embedder import SentenceTransformerEmbedder, configured_embedder
from graphmem.providers.llm import OpenAICompatibleLLM
from graphmem.store import GraphStore
from graphmem.telemetry import Actor, current_actor, set_actor

_worker: dict[str, Any] = {}  # in a worker process: its Memory and writer


def _start(settings: Settings, layers: list[str], threads: int, parent: int,
           actor: Actor) -> None:
    set_actor(actor)  # the history names the parent's surface
    threading.Thread(target=_exit_with, args=(parent,), name="graphmem-parent-watch",
                     daemon=True).start()
    llm = (OpenAICompatibleLLM(settings) if settings.llm_configured and settings.llm_ingest
           else None)
    embedder = configured_embedder(settings, threads=threads)
    context = LayerContext(GraphStore(settings), embedder, llm,
                           batch_size=settings.write_batch_size, settings=settings)
    _worker["writer"] = GraphWriter(context, layers)


def _exit_with(parent: int, every: float = 0.5) -> None:
    """End this worker when the process that started it is gone (killed, not just stopped):
    its open transaction, if any, is then rolled back by the server, so nothing half-written
    stays, and the next ingest completes the rest."""
    while os.getppid() == parent:
        time.sleep(every)
    os._exit(3)


def _write(space: str, conversation: ConversationRecord) -> IngestReport:
    report = IngestReport(space=space)
    began = time.perf_counter()
    _worker["writer"].write_one(space, conversation, report)
    report.seconds = time.perf_counter() - began
    return report


def write_parallel(settings: Settings, space: str, conversations: Sequence[ConversationRecord],
                   layers: list[str], workers: int, report: IngestReport, *,
                   progress: bool = False) -> IngestReport:
    """Write ``conversations`` with ``workers`` processes, largest first. On a failure the
    conversations not started are dropped, the running ones finish, and the error names
    what was stored (running the same ingest again completes it: writes are idempotent)."""
    began = time.perf_counter()
    write_spaces(settings, [(space, conv) for conv in conversations], layers, workers,
                 lambda _space, _key, one: report.absorb(one), progress=progress,
                 desc=f"ingest {space}")
    report.seconds += time.perf_counter() - began
    return report


def write_spaces(settings: Settings, jobs: Sequence[tuple[str, ConversationRecord]],
                 layers: list[str], workers: int,
                 stored: Callable[[str, str, IngestReport], None], *,
                 progress: bool = False, desc: str = "ingest") -> None:
    """Write each (space, conversation) of ``jobs`` with ``workers`` processes, largest first,
    calling ``stored(space, key, report)`` as each commits. A failure is raised as in
    ``write_parallel``, after the running ones finish."""
    threads = max(1, (os.cpu_count() or 1) // workers)
    shared = configured_embedder(settings)
    if isinstance(shared, SentenceTransformerEmbedder):
        shared.prepare()  # the workers share its exported model files
    order = sorted(jobs, key=lambda job: -job[1].n_turns)
    done_keys: list[str] = []
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"),
                             initializer=_start,
                             initargs=(settings, layers, threads, os.getpid(),
                                       current_actor())) as pool:
        futures: dict[Future[IngestReport], tuple[str, str]] = {
            pool.submit(_write, space, conv): (space, conv.key) for space, conv in order}
        bar = tqdm(total=len(futures), desc=desc, unit="conv", disable=not progress,
                   leave=False)

        def take(future: Future[IngestReport]) -> None:
            space, key = futures[future]
            stored(space, key, future.result())
            done_keys.append(key)
            bar.update()

        pending = set(futures)
        failure: BaseException | None = None
        while pending and failure is None:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                if future.exception() is None:
                    take(future)
                elif failure is None:
                    failure = future.exception()
        if failure is not None:
            for future in pending:
                future.cancel()
            for future in pending:  # the running ones commit or fail on their own
                if not future.cancelled() and future.exception() is None:
                    take(future)
        bar.close()
    if failure is not None:
        named = ", ".join(sorted(done_keys)[:10]) + (", ..." if len(done_keys) > 10 else "")
        failure.add_note(f"{len(done_keys)} of {len(jobs)} conversations were stored "
                         f"({named or 'none'}) before a worker failed; "
                         "running the same ingest again completes it (writes are idempotent)")
        raise failure
