"""What a ``Memory`` does to whole spaces and what they hold: list and inspect them, forget a
conversation, sessions or messages, delete a space, back it up and restore it.

:class:`SpaceAdmin` is a part of :class:`graphmem.client.Memory` (which it is mixed into);
it uses the client's store, caches and projections.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from contextlib import nullcontext
from datetime import datetime
from pathlib import Path
from typing import Any

from graphmem.config import Settings
from graphmem.errors import InputError
from graphmem.ids import check_space, conversation_id, turn_parts
from graphmem.ingest.edits import correct, forget
from graphmem.ingest.embedding_rows import BATCH
from graphmem.ingest.inputs.fields import given_text, id_field, node_id
from graphmem.ingest.layer import LayerContext
from graphmem.ingest.live_writer import LiveWriter
from graphmem.ingest.reembed import Reembedder
from graphmem.markers import strip_text
from graphmem.models import (
    CorrectReport,
    ForgetReport,
    MessagePage,
    ReembedReport,
    SpaceChange,
    SpaceFileReport,
    StoredConversation,
    StoredMessage,
    StoredUnit,
)
from graphmem.providers.embedder import Embedder
from graphmem.retrieve.ppr import ProjectionCache
from graphmem.retrieve.space_cache import SpaceCaches
from graphmem.spacefile import export_space, import_space, read_space_file
from graphmem.store import GraphStore, present
from graphmem.text import naive_utc, native_datetime

MAX_PAGE = 1000


class SpaceAdmin(ABC):
    """The spaces' side of the client."""

    settings: Settings
    store: GraphStore
    embedder: Embedder
    progress: bool
    projections: ProjectionCache
    caches: SpaceCaches
    live: LiveWriter

    @abstractmethod
    def flush(self, timeout: float | None = None) -> bool: ...

    @abstractmethod
    def ensure_schema(self) -> None: ...

    @abstractmethod
    def _layer_context(self) -> LayerContext: ...

    @abstractmethod
    def _vectors_changed(self) -> None: ...

    # ------------------------------------------------------------------ list and inspect
    def spaces(self) -> list[dict[str, Any]]:
        return self.store.read("admin/list_spaces")

    def has_space(self, space: str) -> bool:
        """Whether ``space`` exists (something was ingested into it and it was not deleted)."""
        check_space(space)
        return bool(self.store.read("admin/space_exists", space=space)[0]["exists"])

    def conversations(self, space: str) -> list[StoredConversation]:
        """The conversations of ``space``: sessions, messages, first and last session."""
        check_space(space)
        return [StoredConversation(
            conversation=row["conversation"], sessions=row["sessions"], messages=row["turns"],
            first_session_at=native_datetime(row["first_session_at"]),
            last_session_at=native_datetime(row["last_session_at"]),
            pending_layers=row["pending_layers"])
            for row in self.store.read("admin/conversations", space=space)]

    def messages(self, space: str, conversation: str, *, since: datetime | None = None,
                 limit: int = 100, newest_first: bool = False,
                 cursor: int | None = None) -> MessagePage:
        """One page of ``conversation``'s messages in time order (``newest_first`` to start
        from the latest), from sessions started at or after ``since``; pass the page's
        ``next_cursor`` to get the next one (None: there is none)."""
        check_space(space)
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_PAGE:
            raise InputError(f"limit must be a whole number from 1 to {MAX_PAGE}, got "
                             f"{limit!r}", field="limit")
        if cursor is not None and (isinstance(cursor, bool) or not isinstance(cursor, int)
                                   or not -2**63 <= cursor < 2**63):
            raise InputError(f"cursor must be the next_cursor of a page, got {cursor!r}",
                             field="cursor")
        conversation = id_field(conversation, "conversation")
        if since is not None and not isinstance(since, datetime):
            raise InputError(f"since must be a datetime, got {type(since).__name__}",
                             field="since")
        rows = self.store.read("admin/messages", space=space,
                               conversation_id=conversation_id(space, conversation),
                               since=None if since is None else naive_utc(since),
                               newest_first=newest_first, cursor=cursor,
                               limit=limit + 1)
        return message_page(space, conversation, rows, limit, cursor)

    def unit(self, space: str, id: str) -> StoredUnit | None:
        """Any node of ``space`` by its id (a turn, statement, event, scene, episodic unit...)
        with its properties and the turns it comes from (and, for a turn, what every layer
        derived from it); None when there is none."""
        check_space(space)
        rows = self.store.read("admin/unit", space=space, id=node_id(id, "id"))
        if not rows:
            return None
        row = rows[0]
        return StoredUnit(kind=row["kind"], id=row["id"],
                          properties={k: _plain(v) for k, v in row["properties"]},
                          source_turns=row["sources"], derived=row["derived"])

    def history(self, space: str, limit: int = 100) -> list[SpaceChange]:
        """What changed in ``space``, newest first: each transaction that changed it (an
        ingest, messages, derived layers, a forget, a correction, a restore), when, through
        which surface and token, and how many nodes and relationships it touched. A forget
        is recorded as such, never what it forgot."""
        check_space(space)
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_PAGE:
            raise InputError(f"limit must be a whole number from 1 to {MAX_PAGE}, got "
                             f"{limit!r}", field="limit")
        return [SpaceChange(**{**row, "at": native_datetime(row["at"])})
                for row in self.store.read("admin/history", space=space, limit=limit)]

    # ------------------------------------------------------------------ forget, delete
    def forget(self, space: str, conversation: str, *,
               sessions: Sequence[str] | None = None, turns: Sequence[str] | None = None,
               whole_conversation: bool = False, reuse_ids: bool = False) -> ForgetReport:
        """Forget messages (``turns``: their ids), ``sessions`` (their keys) or, with
        ``whole_conversation=True``, the whole ``conversation`` of ``space``: they and
        everything derived only from them are removed, what was derived partly from them is
        derived again (:mod:`graphmem.ingest.edits`). No client serves them afterwards, and
        the forgotten message ids are refused when a history is sent again
        (``LiveReport.forgotten``) unless ``reuse_ids`` is true. Empty lists forget nothing
        (the report's ``note`` says so); giving no selection at all without
        ``whole_conversation`` is an error."""
        check_space(space)
        self.ensure_schema()
        # a derivation under way for this conversation reads the change (its live version
        # moved) and starts again from what remains; its writes and this one take turns
        with self.live.writing(space, conversation):
            report = forget(self._layer_context(), space, conversation, sessions, turns,
                            whole_conversation, reuse_ids)
        self.projections.drop_space(self.store, space)
        self.caches.forget(space)
        if not report.whole_conversation:
            report.pending = self._derive_again(space, conversation, report.layers)
        return report

    def _derive_again(self, space: str, conversation: str, layers: list[str]) -> list[str]:
        """The layers a forget or a correction left pending, derived as live messages' are
        (GRAPHMEM_LIVE_DERIVE); those still pending on return."""
        if not layers:
            return []
        mode = self.settings.live_derive
        if mode == "inline":
            self.live.refresh(space, conversation)
            self.projections.drop_space(self.store, space)
            self.caches.forget(space)
            return []
        if mode == "background":
            self.live.worker().submit(space, conversation)
        return list(layers)

    def correct(self, space: str, turn_id: str, text: str, *,
                keep_old: bool = True) -> CorrectReport:
        """Replace what the stored message ``turn_id`` (a Turn node id, as a hit's
        ``source_turn_ids`` give) says by ``text``, and derive its conversation's layers
        again. The old text stays on the turn as a revision (``unit(...).properties``) unless
        ``keep_old`` is false, in which case it is gone everywhere."""
        check_space(space)
        turn_id = node_id(turn_id, "turn_id")
        text = given_text(text, "text", self.settings.max_turn_chars).strip()
        if not text:
            raise InputError("the corrected text must be a non-empty string", field="text")
        text, blocks = strip_text(text)
        if not text:
            raise InputError("the corrected text holds only recalled context (marked "
                             "<graphmem-context>), which is never stored", field="text")
        self.ensure_schema()
        parts = turn_parts(space, turn_id)
        with self.live.writing(space, parts[0]) if parts else nullcontext():
            report = correct(self._layer_context(), space, turn_id, text, keep_old)
        report.stripped = blocks
        self.projections.drop_space(self.store, space)
        self.caches.forget(space)
        report.pending = self._derive_again(space, report.conversation, report.layers)
        return report

    def delete_space(self, space: str) -> bool:
        """Remove everything stored for ``space`` and nothing else; False when there was no
        such space."""
        self.flush()  # a background derivation must not write into the space after this
        existed = self.has_space(space)
        self.projections.drop_space(self.store, space)
        self.store.run_autocommit("admin/delete_space", space=space)
        self.caches.forget(space)
        return existed

    # ------------------------------------------------------------------ back up, restore
    def export_space(self, space: str, path: str | Path) -> SpaceFileReport:
        """Back up ``space`` to a gzip'd JSON-lines file: every node, relationship and
        property (embeddings exact). Pending live derivations are finished first."""
        self.flush()
        return export_space(self.store, space, Path(path), self.settings.embedding_dimensions)

    def import_space(self, path: str | Path, *, replace: bool = False) -> SpaceFileReport:
        """Restore a space from a file of :meth:`export_space`, under the space id it was
        exported from. The file is checked whole first and stored in one transaction; a space
        that exists is refused unless ``replace``."""
        self.flush()
        data = read_space_file(Path(path), self.settings.embedding_dimensions)
        self.ensure_schema()
        self.projections.drop_space(self.store, data.space)
        report = import_space(self.store, data, Path(path), replace)
        self.caches.forget(data.space)
        return report

    # ------------------------------------------------------------------ another embedder
    def reembed(self, spaces: str | Sequence[str] | None = None, *, batch: int = BATCH,
                after_batch: Callable[[int], object] | None = None) -> ReembedReport:
        """Compute every stored vector of ``spaces`` (one name, several, or None: every
        space) again with the configured embedder, deriving nothing again. Searches keep the
        old vectors until a space's new ones are all in place; a run that was stopped goes
        on where it stopped; a new dimension re-embeds every space and makes the vector
        indexes again (:mod:`graphmem.ingest.reembed`). ``batch`` vectors are staged per
        transaction, and ``after_batch`` hears each batch's size once it is stored."""
        self.flush()
        self.store.apply_schema()  # creates what is missing; never changes a dimension
        chosen = [spaces] if isinstance(spaces, str) else spaces
        report = Reembedder(self.store, self.embedder, self.settings, progress=self.progress,
                            batch=batch, after_batch=after_batch).run(chosen)
        self._vectors_changed()
        return report


def _plain(value: Any) -> Any:
    """A driver value as plain Python (its dates and times as Python's)."""
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value.to_native() if hasattr(value, "to_native") else value


def _decoded(text: str | None) -> Any:
    """A stored payload's JSON text as its value."""
    return None if text is None else json.loads(text)


_MESSAGE = ("id", "turn_id", "speaker", "text", "session", "seq")  # null: deleted mid-read


def message_page(space: str, conversation: str, rows: list[dict[str, Any]], limit: int,
                 cursor: int | None) -> MessagePage:
    """One page of ``admin/messages``' rows (``limit`` + 1 read, to tell whether more
    follow). A message deleted while it was read is left out, and the next page starts after
    the last row read, so none that stays is skipped."""
    shown = present(rows[:limit], _MESSAGE)
    page = [StoredMessage(id=r["id"], turn_id=r["turn_id"], speaker=r["speaker"],
                          text=r["text"], image_caption=r["image_caption"],
                          payload=_decoded(r.get("payload")),
                          said_at=native_datetime(r["said_at"]), session=r["session"],
                          session_started_at=native_datetime(r["session_started_at"]))
            for r in shown]
    more = len(rows) > limit
    after = next((r["seq"] for r in reversed(rows[:limit]) if r.get("seq") is not None), cursor)
    return MessagePage(space=space, conversation=conversation, messages=page,
                       next_cursor=after if more else None)
