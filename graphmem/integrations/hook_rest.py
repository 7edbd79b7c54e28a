"""The hooks' backend over a running ``graphmem serve``: a hook process then imports no model
and answers in the time of one HTTP request. Chosen by ``graphmem hook --url`` (or
``GRAPHMEM_HOOK_URL``, with the bearer token in ``GRAPHMEM_HOOK_TOKEN``)."""

from __future__ import annotations

import json as json_module
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from urllib.parse import quote


@dataclass
class RestBackend:
    url: str
    space: str
    token: str | None = None
    timeout: float = 10.0
    connect_timeout: float = 2.0
    client: Any = field(init=False)

    def __post_init__(self) -> None:
        import httpx

        headers = {"Authorization": f"Bearer {self.token}"} if self.token else {}
        self.client = httpx.Client(base_url=self.url.rstrip("/"), headers=headers,
                                   timeout=httpx.Timeout(self.timeout,
                                                         connect=self.connect_timeout))

    def _path(self, *parts: str) -> str:
        return "/v1/spaces/" + "/".join(quote(p, safe="") for p in (self.space, *parts))

    def _send(self, method: str, path: str, json: Any = None,
              params: dict[str, Any] | None = None) -> tuple[int, str]:
        answer = self.client.request(method, path, json=json, params=params)
        return answer.status_code, answer.text

    def _call(self, method: str, path: str, json: Any = None,
              params: dict[str, Any] | None = None) -> Any:
        status, text = self._send(method, path, json, params)
        if status >= 400:
            raise RuntimeError(f"{method} {path}: {status} {text[:300]}")
        return json_module.loads(text)

    def _has_space(self) -> bool:
        return any(row["space"] == self.space for row in self._call("GET", "/v1/spaces"))

    def context(self, query: str, budget: int) -> str:
        if not self._has_space():
            return ""
        found = self._call("POST", self._path("search"),
                           json={"question": query, "budget": budget})
        return str(found["context"])

    def latest_messages(self, other_than: str, limit: int) -> list[str]:
        if not self._has_space():
            return []
        rows = [r for r in self._call("GET", self._path("conversations"))
                if r["conversation"] != other_than]
        if not rows:
            return []
        latest = max(rows, key=lambda r: r.get("last_session_at") or "")
        page = self._call("GET", self._path("messages"),  # a key may hold '/': not in the path
                          params={"conversation": latest["conversation"], "limit": limit,
                                  "newest_first": "true"})
        return [f"{m['speaker']}: {m['text']}" for m in reversed(page["messages"])]

    def add(self, conversation: str, messages: list[dict[str, Any]]) -> int:
        body = [{**m, "at": m["at"].isoformat()} if isinstance(m.get("at"), datetime) else m
                for m in messages]
        added = self._call("POST", self._path("messages"),
                           json={"conversation": conversation, "messages": body})
        return len(added["added"])
