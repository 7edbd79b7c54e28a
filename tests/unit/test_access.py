"""Bearer tokens as the servers read them: a bad one is named by position and digest, never
by its text."""

from __future__ import annotations

import pytest

from graphmem.config import Settings
from graphmem.errors import GraphmemError
from graphmem.serve.access import AccessError, caller_id, token_spaces

TOKEN = "a-long-random-secret-1"


@pytest.mark.parametrize(("tokens", "says"), [
    ({TOKEN: []}, "bearer token #1 of GRAPHMEM_REST_TOKENS (digest "),
    ({TOKEN: ["alice"], " " * 16: ["bob"]}, "bearer token #2"),
    ({TOKEN: ["alice"], "short": ["bob"]}, "16 or more characters"),
])
def test_a_bad_token_is_named_by_position_and_digest(tokens: dict[str, list[str]],
                                                     says: str) -> None:
    with pytest.raises(GraphmemError) as caught:
        token_spaces(tokens)
    message = str(caught.value)
    assert says in message and "--space" not in message
    assert all(token not in message for token in tokens if token.strip())


def test_a_good_token_maps_to_its_spaces() -> None:
    assert token_spaces({TOKEN: [" alice ", "bob"]})[TOKEN].allowed == {"alice", "bob"}
    with pytest.raises(GraphmemError) as caught:
        token_spaces({TOKEN: []})
    assert len(caller_id(TOKEN)) == 12 and caller_id(TOKEN) in str(caught.value)


def test_a_read_only_token_reads_its_spaces_and_changes_none() -> None:
    spaces = token_spaces({TOKEN: {"spaces": ["alice"], "read_only": True},
                           TOKEN + "-2": {"spaces": ["alice"]}})
    reader, writer = spaces[TOKEN], spaces[TOKEN + "-2"]
    assert reader.resolve("alice") == "alice" and not reader.writes
    with pytest.raises(AccessError, match="read-only"):
        reader.changing("alice")
    assert writer.writes and writer.changing(None) == "alice"
    with pytest.raises(AccessError, match="not served here"):
        reader.changing("bob")   # a space it does not name is refused before its rights
    both = writer.within(reader)
    assert both.allowed == {"alice"} and not both.writes


@pytest.mark.parametrize("grant", [
    {"spaces": ["alice"], "read_only": "yes"},
    {"spaces": ["alice"], "writes": False},
    {"read_only": True},
])
def test_a_malformed_grant_is_refused_with_its_form(grant: dict[str, object]) -> None:
    with pytest.raises(ValueError, match='"read_only": true'):
        Settings(rest_tokens={TOKEN: grant})

