"""An LLM client for any OpenAI-compatible endpoint that returns validated pydantic models.

Every call names its task (``"answer"``, ``"edu_extraction"``, ...). Responses are cached on
disk keyed by (model, messages, parameters, output schema), transient failures and invalid
output are retried a bounded number of times with tenacity, and tokens are counted per task.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Protocol, TypeVar

from pydantic import BaseModel, ValidationError
from tenacity import (
    RetryError,
    Retrying,
    retry_if_exception_type,
    stop_after_attempt,
    wait_exponential,
)

from graphmem.config import Settings
from graphmem.errors import ConfigurationError, GraphmemError

M = TypeVar("M", bound=BaseModel)
Message = dict[str, str]


class LLMError(GraphmemError):
    """The model gave no valid answer within the allowed attempts."""

    def __init__(self, task: str, reason: str) -> None:
        self.task = task
        super().__init__(f"LLM task {task!r} failed: {reason}")


class InvalidOutput(Exception):
    """The reply was not JSON, was cut off, or did not fit the output model (retried)."""


@dataclass
class TokenUsage:
    calls: int = 0  # requests sent (retries included)
    cache_hits: int = 0
    failures: int = 0  # items given up after the allowed attempts
    fallbacks: int = 0  # items then done by the LLM-free path instead
    prompt_tokens: int = 0
    completion_tokens: int = 0


def usage_table(usage: dict[str, TokenUsage]) -> str:
    """Per-task LLM use as aligned text lines (empty when nothing was asked)."""
    if not usage:
        return ""
    head = f"{'task':<22}{'calls':>7}{'cached':>8}{'failed':>8}{'fallback':>9}{'prompt tok':>12}" \
           f"{'output tok':>12}"
    lines = [head]
    for task, u in sorted(usage.items()):
        lines.append(f"{task:<22}{u.calls:>7}{u.cache_hits:>8}{u.failures:>8}{u.fallbacks:>9}"
                     f"{u.prompt_tokens:>12}{u.completion_tokens:>12}")
    return "\n".join(lines)


class LLM(Protocol):
    """What graphmem needs of a language model."""

    @property
    def model(self) -> str: ...

    def structured(self, task: str, messages: list[Message], output: type[M]) -> M:
        """Ask once; return the reply parsed into ``output``; raise :class:`LLMError`."""
        ...

    def structured_batch(
        self, task: str, requests: Sequence[list[Message]], output: type[M]
    ) -> list[M | LLMError]:
        """Ask several times; a failed item comes back as its :class:`LLMError`."""
        ...

    def usage(self) -> dict[str, TokenUsage]: ...

    def record_fallback(self, task: str) -> None:
        """Count one item of ``task`` that the LLM-free path did instead."""
        ...


class DiskCache:
    """JSON files under a folder, one per key (sha256), written atomically."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def _path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict[str, Any] | None:
        try:
            data = json.loads(self._path(key).read_text(encoding="utf-8"))
        except (FileNotFoundError, json.JSONDecodeError):
            return None
        return data if isinstance(data, dict) else None

    def put(self, key: str, value: dict[str, Any]) -> None:
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{threading.get_ident()}.tmp")
        tmp.write_text(json.dumps(value, ensure_ascii=False), encoding="utf-8")
        tmp.replace(path)


_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$", re.MULTILINE)


def parse_json_object(text: str) -> Any:
    """The JSON object in a reply, tolerating code fences and chatter around it."""
    cleaned = _FENCE.sub("", text.strip())
    try:
        return json.loads(cleaned)
    except json.JSONDecodeError:
        start, end = cleaned.find("{"), cleaned.rfind("}")
        if start == -1 or end <= start:
            raise InvalidOutput(f"no JSON object in reply: {text[:200]!r}") from None
        try:
            return json.loads(cleaned[start : end + 1])
        except json.JSONDecodeError as exc:
            raise InvalidOutput(f"malformed JSON in reply: {exc.msg}") from exc


def _shape(node: dict[str, Any], defs: dict[str, Any]) -> str:
    """A compact, example-like rendering of a JSON Schema node."""
    if "$ref" in node:
        return _shape(defs[node["$ref"].rsplit("/", 1)[-1]], defs)
    if "anyOf" in node:
        return " | ".join(_shape(option, defs) for option in node["anyOf"])
    if "enum" in node:
        return "|".join(json.dumps(v) for v in node["enum"])
    kind = node.get("type")
    if kind == "object":
        fields = ", ".join(f'"{name}": {_shape(sub, defs)}'
                           for name, sub in node.get("properties", {}).items())
        return "{" + fields + "}"
    if kind == "array":
        return f"[{_shape(node.get('items', {}), defs)}, ...]"
    if kind == "number" and "minimum" in node and "maximum" in node:
        return f"<number {node['minimum']}..{node['maximum']}>"
    return f"<{kind or 'value'}>"


def schema_instruction(output: type[BaseModel]) -> str:
    """How to reply: one JSON object of the output model's shape (compact, so that small
    models follow it instead of echoing a schema)."""
    schema = output.model_json_schema()
    return ("Reply with one JSON object only, no other text, of this shape:\n"
            + _shape(schema, schema.get("$defs", {})))


def response_format(mode: str, output: type[BaseModel]) -> dict[str, Any]:
    """The ``response_format`` of a request in the configured JSON mode: ``object`` (plain
    JSON mode, any OpenAI-compatible server), ``schema`` (OpenAI structured outputs, also
    vLLM and llama.cpp's C++ server) or ``llama-cpp`` (llama-cpp-python's grammar from a
    schema inside JSON mode)."""
    schema = output.model_json_schema()
    if mode == "schema":
        return {"type": "json_schema", "json_schema": {"name": output.__name__, "schema": schema}}
    if mode == "llama-cpp":
        return {"type": "json_object", "schema": _loosen(schema)}
    return {"type": "json_object"}


_BOUNDS = {"maxLength", "minLength", "maxItems", "minItems", "pattern"}


def _loosen(node: Any) -> Any:
    """The schema without length and pattern bounds: llama.cpp turns them into grammar
    repetitions that it refuses (and its Python server dies of) beyond a few hundred. The
    reply is still validated against the full model afterwards."""
    if isinstance(node, dict):
        return {k: _loosen(v) for k, v in node.items() if k not in _BOUNDS}
    if isinstance(node, list):
        return [_loosen(v) for v in node]
    return node


class OpenAICompatibleLLM:
    """The ``openai`` package pointed at ``GRAPHMEM_LLM_BASE_URL`` (or OpenAI itself)."""

    def __init__(self, settings: Settings, *, cache: DiskCache | None = None) -> None:
        if not settings.llm_configured:
            raise ConfigurationError("no LLM configured: set GRAPHMEM_LLM_BASE_URL or _API_KEY")
        from openai import OpenAI

        key = settings.llm_api_key.get_secret_value() if settings.llm_api_key else "unused"
        self._client = OpenAI(base_url=settings.llm_base_url, api_key=key,
                              timeout=settings.llm_timeout, max_retries=0)
        self._settings = settings
        self._cache = cache or DiskCache(settings.cache_dir / "llm")
        self._usage: dict[str, TokenUsage] = {}
        self._lock = threading.Lock()

    @property
    def model(self) -> str:
        return self._settings.llm_model

    def usage(self) -> dict[str, TokenUsage]:
        with self._lock:
            return {task: TokenUsage(**asdict(u)) for task, u in self._usage.items()}

    def record_fallback(self, task: str) -> None:
        self._count(task, fallbacks=1)

    def _count(self, task: str, **delta: int) -> None:
        with self._lock:
            usage = self._usage.setdefault(task, TokenUsage())
            for name, value in delta.items():
                setattr(usage, name, getattr(usage, name) + value)

    def _params(self, output: type[BaseModel]) -> dict[str, Any]:
        s = self._settings
        return {"temperature": s.llm_temperature, "max_tokens": s.llm_max_tokens,
                "response_format": response_format(s.llm_json_mode, output),
                "output": output.__name__}

    def structured(self, task: str, messages: list[Message], output: type[M]) -> M:
        full = [*messages, {"role": "system", "content": schema_instruction(output)}]
        params = self._params(output)
        request = {"model": self.model, "messages": full, "params": params,
                   "schema": output.model_json_schema()}
        key = hashlib.sha256(json.dumps(request, sort_keys=True).encode()).hexdigest()
        cached = self._cache.get(key)
        if cached is not None:
            try:
                parsed = output.model_validate(parse_json_object(cached["content"]))
            except (InvalidOutput, ValidationError, KeyError):
                parsed = None
            if parsed is not None:
                self._count(task, cache_hits=1)
                return parsed
        retry = Retrying(
            stop=stop_after_attempt(self._settings.llm_max_attempts),
            wait=wait_exponential(multiplier=0.5, max=8),
            retry=retry_if_exception_type((InvalidOutput, *_transient_errors())),
            reraise=False,
        )
        content, reply = "", None
        try:
            for attempt in retry:
                with attempt:
                    content = self._ask(task, full, params)
                    try:
                        reply = output.model_validate(parse_json_object(content))
                    except ValidationError as exc:
                        raise InvalidOutput(f"reply does not fit {output.__name__}: {exc}") from exc
        except RetryError as exc:
            self._count(task, failures=1)
            last = exc.last_attempt.exception()
            raise LLMError(task, f"{type(last).__name__}: {last}") from last
        except Exception as exc:  # a non-transient API error (bad key, unknown model, ...)
            self._count(task, failures=1)
            raise LLMError(task, f"{type(exc).__name__}: {exc}") from exc
        if reply is None:  # pragma: no cover - tenacity either returns a value or raises
            raise LLMError(task, "no reply")
        self._cache.put(key, {"content": content, "model": self.model, "task": task})
        return reply

    def _ask(self, task: str, messages: list[Message], params: dict[str, Any]) -> str:
        response = self._client.chat.completions.create(
            model=self.model,
            messages=messages,  # type: ignore[arg-type]
            temperature=params["temperature"],
            max_tokens=params["max_tokens"],
            response_format=params["response_format"],
        )
        usage = response.usage
        self._count(task, calls=1,
                    prompt_tokens=usage.prompt_tokens if usage else 0,
                    completion_tokens=usage.completion_tokens if usage else 0)
        choice = response.choices[0]
        if choice.finish_reason == "length":
            raise InvalidOutput("reply cut off at the token limit")
        return choice.message.content or ""

    def structured_batch(
        self, task: str, requests: Sequence[list[Message]], output: type[M]
    ) -> list[M | LLMError]:
        return one_by_one(self, task, requests, output)


def one_by_one(llm: LLM, task: str, requests: Sequence[list[Message]],
               output: type[M]) -> list[M | LLMError]:
    """``structured_batch`` for a client that sends requests one at a time."""
    results: list[M | LLMError] = []
    for messages in requests:
        try:
            results.append(llm.structured(task, messages, output))
        except LLMError as exc:
            results.append(exc)
    return results


def _transient_errors() -> tuple[type[Exception], ...]:
    import openai

    return (openai.APIConnectionError, openai.APITimeoutError, openai.RateLimitError,
            openai.InternalServerError)
