"""Paths and small helpers shared by the tests."""

from __future__ import annotations

from pathlib import Path

TESTS = Path(__file__).parent
DATA = TESTS / "data"
SAMPLE = TESTS.parent / "graphmem" / "data" / "sample_conversation.json"
