"""Hits from the rows that retrieval statements return, rendered as a context shows them.

Turns render as ``[day] speaker: text [shares an image: caption]``; a statement as its speaker
and text with its session's day; an event as its turns, one per line, the day on the first.
"""

from __future__ import annotations

from typing import Any

from graphmem.models import Hit
from graphmem.text import format_date, native_datetime, render_turn


def turn_hit(row: dict[str, Any]) -> Hit:
    """From a row with a turn's id, speaker, text, source_id, image_caption, its session's
    id, started_at and date_text, and a score."""
    started = native_datetime(row.get("started_at"))
    return Hit(
        id=row["id"], kind="turn", score=float(row["score"]),
        text=render_turn(row["speaker"], row["text"], started, row.get("image_caption")),
        source_turn_ids=[row["id"]], source_ids=[row["source_id"]],
        session_id=row["session_id"], started_at=started, date_text=row.get("date_text"),
        speaker=row["speaker"],
    )


def edu_hit(row: dict[str, Any], score: float) -> Hit:
    """From an EDU row (kind, text, rendered, speaker, turn_ids, source_ids, session)."""
    started = native_datetime(row.get("started_at"))
    day = format_date(started)
    body = row["rendered"] if row["kind"] == "chunk" else row["text"]
    speaker = row["speaker"]
    if row["kind"] != "chunk" and not body.startswith(f"{speaker}:"):
        body = f"{speaker}: {body}"
    return Hit(id=row["id"], kind="chunk" if row["kind"] == "chunk" else "edu", score=score,
               text=f"[{day}] {body}" if day else body, source_turn_ids=list(row["turn_ids"]),
               source_ids=list(row["source_ids"]), session_id=row["session_id"],
               started_at=started, date_text=row.get("date_text"), speaker=speaker)


def render_event(row: dict[str, Any]) -> str:
    """The event's turns, one per line; the session's day heads the first."""
    started = native_datetime(row.get("started_at"))
    return "\n".join(render_turn(t["speaker"], t["text"], started if i == 0 else None,
                                 t.get("image_caption")) for i, t in enumerate(row["turns"]))


def event_hit(row: dict[str, Any]) -> Hit:
    """From an event row with its ordered ``turns`` (id, speaker, text, source_id, caption)."""
    started = native_datetime(row.get("started_at"))
    return Hit(id=row["id"], kind="event", score=float(row["score"]), text=render_event(row),
               source_turn_ids=[t["id"] for t in row["turns"]],
               source_ids=[t["source_id"] for t in row["turns"]], session_id=row["session_id"],
               started_at=started, date_text=row.get("date_text"),
               speaker=row["turns"][0]["speaker"] if row["turns"] else None)
