"""Settings from the environment, and the shape of every Cypher file."""

from __future__ import annotations

import re

import pytest

from graphmem import cypher
from graphmem.config import Settings


def test_settings_read_graphmem_prefixed_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRAPHMEM_NEO4J_URI", "neo4j://db.example:7999")
    monkeypatch.setenv("GRAPHMEM_DEFAULT_BUDGET", "2000")
    settings = Settings()
    assert settings.bolt_port == 7999 and settings.default_budget == 2000
    assert not settings.llm_configured
    monkeypatch.setenv("GRAPHMEM_LLM_BASE_URL", "http://127.0.0.1:8080/v1")
    assert Settings().llm_configured


def test_bad_uri_is_rejected(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRAPHMEM_NEO4J_URI", "http://localhost:7474")
    with pytest.raises(ValueError, match="GRAPHMEM_NEO4J_URI"):
        Settings()


def test_every_cypher_file_loads() -> None:
    assert "retrieve/turns_rrf" in cypher.names()
    for name in cypher.names():
        assert cypher.statements(name), name


@pytest.mark.parametrize("name", cypher.names())
def test_cypher_takes_values_only_as_parameters(name: str) -> None:
    """No Python formatting holes and no quoted values other than fixed option names."""
    for statement in cypher.statements(name):
        code = "\n".join(line.split("//")[0] for line in statement.splitlines())
        assert not re.search(r"\{\w*\}|%s|%\(", code), f"{name}: formatting placeholder"
        for literal in re.findall(r"'([^']*)'", code):
            assert re.fullmatch(r"[a-z_.]*|>|\*", literal), f"{name}: {literal!r}"


def test_unknown_names_are_refused() -> None:
    with pytest.raises(Exception, match="no Cypher file"):
        cypher.statements("../../etc/passwd")


def test_the_browser_address_is_an_http_one_or_the_local_default() -> None:
    assert Settings().browser_address == f"http://127.0.0.1:{Settings().neo4j_http_port}/browser/"
    assert Settings(neo4j_uri="neo4j+s://db.example.com").browser_address is None
    given = Settings(browser_url="https://db.example.com:7473/browser/")
    assert given.browser_address == "https://db.example.com:7473/browser/"
    with pytest.raises(ValueError, match="http"):
        Settings(browser_url="javascript:alert(1)")
