"""Forgetting and correcting what a space holds.

**Forgetting**: a conversation, some of its sessions, or some of its turns, gone from the graph.

What is forgotten goes with everything derived from it; what remains is derived again:

1. one transaction takes the space's lock (a new revision: no client cache or projection
   serves the old state) and removes the forgotten turns and sessions with every node derived
   from them by any layer (``ingest/forget_turns``), then every node the conversation's
   layers derived (``ingest/forget_derived``: a scene, a boundary description or an episodic
   unit may quote a forgotten turn beside kept ones), then what nothing supports any more:
   arguments no statement mentions, speakers who say nothing, characters in no scene
   (``ingest/forget_orphans``); it chains the remaining turns again
   (``ingest/turns/link_turns``) and marks the layers the conversation held as pending over
   all its sessions (``ingest/mark_rederive``). Once it commits nothing of what was forgotten
   is stored, and the call returns: a forget costs one transaction, not a re-ingest.
2. the layers are derived again from what remains as live messages' layers are
   (:mod:`graphmem.ingest.live_writer`: a moment later by the client's worker in the
   default ``GRAPHMEM_LIVE_DERIVE=background``, within the call in ``inline``, by
   ``graphmem refresh`` in ``manual``); until then searches read the conversation's raw
   turns, which are whole.

A conversation left without turns is forgotten whole (``ingest/forget_conversation``).

A forget sticks: the first transaction also keeps a digest of each forgotten message's id on
the space (``ingest/forget_ids``; the id's digest only, never what was said), and a live
message given one of those ids later is refused (``LiveReport.forgotten``), so a framework or
client that sends a thread's history again does not bring it back. ``reuse_ids`` forgets
without that (an application that reuses its keys, as a key-value store does).

What a layer derived is found by provenance: every derived node links to the turns it comes
from (``FROM_TURN``), so a plug-in layer's nodes go with graphmem's own, whether or not this
process has the plug-in installed. Nothing is forgotten unless asked: an empty selection
forgets nothing, and a whole conversation only with ``whole_conversation``.
Deriving again costs what ingesting the remaining conversation costs.

**Correcting** a message (:func:`correct`) is the same two steps: the first transaction
replaces its text (keeping the old one on the turn as a revision unless asked not to,
``ingest/correct_turn``) and removes what the conversation's layers derived; the call then
embeds the turn again (its session's turns layer, which embeds only changed text), and the
layers follow as above.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from graphmem.errors import InputError, NotFoundError
from graphmem.ids import conversation_id, forgotten_digests, session_id, turn_id
from graphmem.ingest.inputs.fields import id_field
from graphmem.ingest.layer import LayerContext
from graphmem.ingest.layers import LAYERS, run_order
from graphmem.ingest.stored import stored_conversations
from graphmem.ingest.writer import GraphWriter
from graphmem.models import CorrectReport, ForgetReport
from graphmem.store import Tx

STATEMENTS = ("ingest/forget_turns", "ingest/forget_derived", "ingest/forget_conversation",
              "ingest/forget_orphans", "ingest/correct_turn", "ingest/forget_ids",
              "ingest/mark_rederive")
NOTHING_SELECTED = "the selection was empty: nothing was forgotten"


def forget(context: LayerContext, space: str, conversation: str,
           sessions: Sequence[str] | None = None, turns: Sequence[str] | None = None,
           whole_conversation: bool = False, reuse_ids: bool = False) -> ForgetReport:
    """Forget ``turns`` (their input ids) and ``sessions`` (their keys) of ``conversation``,
    or, with ``whole_conversation``, all of it. Empty lists forget nothing: a caller that
    selected no message must never lose the conversation. The forgotten ids are refused when
    added again unless ``reuse_ids``."""
    conversation = id_field(conversation, "conversation")
    selected = sessions is not None or turns is not None
    if whole_conversation and selected:
        raise InputError("give messages or sessions to forget, or whole_conversation, not both",
                         field="whole_conversation")
    if not whole_conversation and not selected:
        raise InputError("say what to forget: messages, sessions, or the whole conversation "
                         "(whole_conversation)", field="messages")
    sessions = _ids("session", sessions)
    turns = _ids("message", turns)
    store = context.store
    key = store.settings.forget_secret
    found = stored_conversations(store, space, conversation_id(space, conversation))
    if not found:
        raise NotFoundError(f"space {space!r} holds no conversation {conversation!r}",
                            field="conversation")
    record = found[0]
    report = ForgetReport(space, conversation)
    known_sessions = {s.key for s in record.sessions}
    known_turns = {t.source_id for s in record.sessions for t in s.turns}
    _check("session", sessions, known_sessions, conversation)
    _check("message", turns, known_turns, conversation)
    if not whole_conversation and not sessions and not turns:
        report.note = NOTHING_SELECTED
        return report
    chosen = set(turns)
    gone_sessions = set(known_sessions) if whole_conversation else set(sessions)
    kept = tuple(s.model_copy(update={"turns": tuple(t for t in s.turns
                                                     if t.source_id not in chosen)})
                 for s in record.sessions if s.key not in gone_sessions)
    kept = tuple(s for s in kept if s.turns)  # a session left without turns goes whole
    gone_sessions |= known_sessions - {s.key for s in kept}
    gone_turns = [t.source_id for s in record.sessions for t in s.turns
                  if s.key in gone_sessions or t.source_id in chosen]
    report.turns, report.sessions = len(gone_turns), len(gone_sessions)
    gone = ([session_id(space, conversation, k) for k in gone_sessions],
            [turn_id(space, conversation, t) for t in gone_turns])

    def tombstones(tx: Tx) -> None:
        tx.run("ingest/forget_ids", space=space, refuse=not reuse_ids,
               digests=[forgotten_digests(t, key) for t in gone[1]])

    if not kept:
        report.whole_conversation = True
        store.change(space, "forget",
                     lambda tx: _forget_whole(tx, space, conversation, report, tombstones),
                     "ingest/forget")
        return report

    def remove(tx: Tx) -> None:
        tx.run("ingest/forget_turns", space=space, session_ids=gone[0], turn_ids=gone[1])
        tombstones(tx)

    report.layers = _rewrite(context, space, conversation, "forget", remove)
    return report


def correct(context: LayerContext, space: str, turn: str, text: str,
            keep: bool = True) -> CorrectReport:
    """Replace the text of the stored turn ``turn`` (a Turn node id) by ``text``; the old text
    stays on the turn as a revision unless ``keep`` is false."""
    rows = context.store.read("admin/unit", space=space, id=turn)
    if not rows or rows[0]["kind"] != "Turn":
        raise NotFoundError(f"space {space!r} holds no message {turn!r}", field="turn_id")
    [record] = stored_conversations(context.store, space,
                                    dict(rows[0]["properties"])["conversation_id"])
    report = CorrectReport(space, turn, 0, conversation=record.key)

    def replace(tx: Tx) -> None:
        report.revisions = tx.run("ingest/correct_turn", space=space, turn_id=turn, text=text,
                                  keep=keep)[0]["revisions"]

    report.layers = _rewrite(context, space, record.key, "correct", replace, embed=turn)
    return report


def _rewrite(context: LayerContext, space: str, conversation: str, what: str,
             change: Callable[[Tx], object], embed: str | None = None) -> list[str]:
    """``change`` in a transaction that also removes what the conversation's layers derived
    and what nothing supports any more, and marks those layers pending; then, with ``embed``
    (a Turn id), that turn's session embedded again. Returns the layers left pending."""
    store = context.store
    held = _held_layers(store.read("admin/space_state", space=space,
                                   layers=list(LAYERS))[0])
    pending = [n for n in run_order(held) if n != "turns"]
    cid = conversation_id(space, conversation)

    def first(tx: Tx) -> None:
        change(tx)
        tx.run("ingest/forget_derived", space=space, conversation_id=cid)
        tx.run("ingest/forget_orphans", space=space)
        tx.run("ingest/turns/link_turns", space=space, conversation_id=cid)
        tx.run("ingest/mark_rederive", space=space, conversation_id=cid, pending=pending)

    store.change(space, what, first, "ingest/rewrite")
    if embed is not None:
        [record] = stored_conversations(store, space, cid)
        own = tuple(s for s in record.sessions
                    if any(turn_id(space, conversation, t.source_id) == embed
                           for t in s.turns))
        GraphWriter(context, ["turns"], f"{what}: message embedded again").write(
            space, [record.model_copy(update={"sessions": own})])
    return pending


def _forget_whole(tx: Tx, space: str, conversation: str, report: ForgetReport,
                  tombstones: Callable[[Tx], None]) -> None:
    tombstones(tx)
    tx.run("ingest/forget_conversation", space=space,
           conversation_id=conversation_id(space, conversation))
    tx.run("ingest/forget_orphans", space=space)


def _held_layers(state: dict[str, Any]) -> list[str]:
    """The layers some session of the space holds (turns always)."""
    return ["turns", *(r["layer"] for r in state["layers"]
                       if r["layer"] != "turns" and r["missing"] < state["sessions"])]


def _ids(kind: str, given: Sequence[str] | None) -> list[str]:
    """Ids as a selection gives them: a list, each checked and stripped as stored ids are."""
    if given is None:
        return []
    if isinstance(given, (str, bytes)) or not isinstance(given, Sequence | set | frozenset):
        raise InputError(f"{kind}s are given as a list of ids, got {type(given).__name__}",
                         field=f"{kind}s")
    return [id_field(g, f"{kind}s[{i}]") for i, g in enumerate(given)]


def _check(kind: str, given: Sequence[str], known: set[str], conversation: str) -> None:
    unknown = [g for g in given if g not in known]
    if unknown:
        raise NotFoundError(f"conversation {conversation!r} has no {kind} {unknown[0]!r}"
                            + (f" (and {len(unknown) - 1} more unknown)" if len(unknown) > 1
                               else ""), field=f"{kind}s")
