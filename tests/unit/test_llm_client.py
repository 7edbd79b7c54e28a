"""The LLM client against a real HTTP server on loopback that speaks the chat-completions API
and replies from a script (so retries, validation and caching are exercised for real)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic import BaseModel, Field

from graphmem.config import Settings
from graphmem.errors import ConfigurationError
from graphmem.providers.llm import LLMError, OpenAICompatibleLLM, parse_json_object

from helpers import ScriptedServer


class Reply(BaseModel):
    answer: str = Field(max_length=500)
    confidence: float


@pytest.fixture()
def server() -> Iterator[ScriptedServer]:
    srv = ScriptedServer()
    yield srv
    srv.httpd.shutdown()


def client(server: ScriptedServer, tmp_path: Path, attempts: int = 3) -> OpenAICompatibleLLM:
    settings = Settings(home=tmp_path, llm_base_url=server.url, llm_model="scripted",
                        llm_max_attempts=attempts, llm_timeout=5)
    return OpenAICompatibleLLM(settings)


MESSAGES = [{"role": "user", "content": "What colour is the sky?"}]


def test_valid_reply_is_parsed_and_counted(server: ScriptedServer, tmp_path: Path) -> None:
    server.script = [('```json\n{"answer": "blue", "confidence": 0.9}\n```', "stop")]
    llm = client(server, tmp_path)
    assert llm.structured("demo", MESSAGES, Reply) == Reply(answer="blue", confidence=0.9)
    usage = llm.usage()["demo"]
    assert (usage.calls, usage.prompt_tokens, usage.completion_tokens) == (1, 11, 5)
    sent = server.requests[0]
    assert sent["response_format"] == {"type": "json_object"}
    assert sent["messages"][-1]["content"].endswith(  # type: ignore[index]
        '{"answer": <string>, "confidence": <number>}')


def test_json_modes_send_the_schema_where_the_server_takes_it(server: ScriptedServer,
                                                               tmp_path: Path) -> None:
    for mode, expected in (("schema", "json_schema"), ("llama-cpp", "json_object")):
        server.script = [('{"answer": "blue", "confidence": 0.9}', "stop")]
        settings = Settings(home=tmp_path / mode, llm_base_url=server.url, llm_model="m",
                            llm_json_mode=mode)
        OpenAICompatibleLLM(settings).structured("demo", MESSAGES, Reply)
        sent = server.requests[-1]["response_format"]
        assert sent["type"] == expected  # type: ignore[index]
        if mode == "schema":
            assert sent["json_schema"]["schema"] == Reply.model_json_schema()  # type: ignore[index]
        else:  # without the length bounds that llama.cpp's grammar cannot take
            assert "maxLength" not in json.dumps(sent["schema"])  # type: ignore[index]
            assert sent["schema"]["required"] == ["answer", "confidence"]  # type: ignore[index]


def test_fallbacks_are_counted_per_task(server: ScriptedServer, tmp_path: Path) -> None:
    llm = client(server, tmp_path)
    llm.record_fallback("demo")
    llm.record_fallback("demo")
    assert llm.usage()["demo"].fallbacks == 2 and llm.usage()["demo"].calls == 0


def test_invalid_then_truncated_then_valid_is_retried(server: ScriptedServer,
                                                      tmp_path: Path) -> None:
    server.script = [("not json at all", "stop"),
                     ('{"answer": "blue", "confid', "length"),
                     ('{"answer": "blue", "confidence": 1}', "stop")]
    llm = client(server, tmp_path)
    assert llm.structured("demo", MESSAGES, Reply).confidence == 1.0
    assert len(server.requests) == 3 and llm.usage()["demo"].calls == 3


def test_gives_up_after_bounded_attempts(server: ScriptedServer, tmp_path: Path) -> None:
    server.script = [('{"answer": "blue"}', "stop")] * 5  # confidence always missing
    llm = client(server, tmp_path, attempts=2)
    with pytest.raises(LLMError, match="demo"):
        llm.structured("demo", MESSAGES, Reply)
    assert len(server.requests) == 2
    assert llm.usage()["demo"].failures == 1


def test_cache_answers_the_same_request_without_the_server(server: ScriptedServer,
                                                          tmp_path: Path) -> None:
    server.script = [('{"answer": "blue", "confidence": 0.5}', "stop")]
    first = client(server, tmp_path).structured("demo", MESSAGES, Reply)
    again = client(server, tmp_path)  # a new client reading the same disk cache
    assert again.structured("demo", MESSAGES, Reply) == first
    assert len(server.requests) == 1 and again.usage()["demo"].cache_hits == 1
    other = [{"role": "user", "content": "And at night?"}]
    server.script = [('{"answer": "black", "confidence": 0.7}', "stop")]
    assert again.structured("demo", other, Reply).answer == "black"
    assert len(server.requests) == 2


def test_unreachable_server_is_an_llm_error(tmp_path: Path) -> None:
    settings = Settings(home=tmp_path, llm_base_url="http://127.0.0.1:9/v1",
                        llm_max_attempts=2, llm_timeout=2)
    with pytest.raises(LLMError, match="APIConnectionError"):
        OpenAICompatibleLLM(settings).structured("demo", MESSAGES, Reply)


def test_a_server_slower_than_the_timeout_is_retried_then_given_up(
        server: ScriptedServer, tmp_path: Path) -> None:
    server.delay = 1.5
    settings = Settings(home=tmp_path, llm_base_url=server.url, llm_model="slow",
                        llm_max_attempts=2, llm_timeout=0.3)
    llm = OpenAICompatibleLLM(settings)
    with pytest.raises(LLMError, match="Timeout"):
        llm.structured("demo", MESSAGES, Reply)
    assert len(server.requests) == 2 and llm.usage()["demo"].failures == 1


def test_batch_returns_errors_in_place(server: ScriptedServer, tmp_path: Path) -> None:
    server.script = [('{"answer": "a", "confidence": 1}', "stop"), ("nope", "stop")]
    results = client(server, tmp_path, attempts=1).structured_batch(
        "demo", [MESSAGES, [{"role": "user", "content": "other"}]], Reply)
    assert isinstance(results[0], Reply) and isinstance(results[1], LLMError)


def test_no_llm_configured(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError):
        OpenAICompatibleLLM(Settings(home=tmp_path))


def test_parse_json_object_tolerates_chatter() -> None:
    assert parse_json_object('Sure! {"a": 1} hope that helps') == {"a": 1}
