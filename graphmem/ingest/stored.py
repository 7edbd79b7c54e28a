"""Conversations as stored: rebuilt from a space's sessions and turns, so that a layer can be
added to a space without the file it was ingested from. Ids follow from the same keys, so
the layers write exactly what an ingest of the original file would have written."""

from __future__ import annotations

from graphmem.models import ConversationRecord, SessionRecord, stored_turn
from graphmem.store import GraphStore
from graphmem.text import native_datetime


def stored_conversations(store: GraphStore, space: str,
                         conversation_id: str | None = None) -> list[ConversationRecord]:
    """Every conversation of ``space`` (or the one with ``conversation_id``)."""
    records = []
    for row in store.read("ingest/conversation_records", space=space,
                          conversation_id=conversation_id):
        sessions = tuple(
            SessionRecord(key=s["key"], index=s["index"],
                          started_at=native_datetime(s["started_at"]), date_text=s["date_text"],
                          turns=tuple(stored_turn(t) for t in s["turns"]))
            for s in row["sessions"])
        records.append(ConversationRecord(key=row["conversation"], sessions=sessions,
                                          source_format=row["source_format"] or "graph",
                                          source_file=f"space {space}"))
    return records
