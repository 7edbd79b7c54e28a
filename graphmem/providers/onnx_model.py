"""A mean-pooled sentence-transformers model run by ONNX Runtime instead of PyTorch.

The model's own files are turned into one ONNX graph (the transformer, mean pooling over the
attention mask, L2 normalisation) the first time it is used, by ``torch.onnx.export`` on this
machine, and kept in ``GRAPHMEM_HOME/cache/onnx`` under a key of the model files' sizes and
times; nothing is downloaded. Texts are tokenised by the model's ``tokenizer.json`` (Hugging
Face ``tokenizers``), cut at the model's ``max_seq_length`` like sentence-transformers does,
and run in batches of similar length. The vectors equal PyTorch's within 1e-6
(``tests/unit/test_onnx_embedder.py``); on our 2-core machines the model runs 1.4 to 2 times
faster, and a process that only searches never imports torch.

``quantized`` runs a copy of that graph whose matrix weights are 8-bit integers, one scale per
output channel (ONNX Runtime's dynamic quantisation, made here from the exported graph): about
twice as fast again on 2 cores, with vectors a little off the model's (cosine ~0.99 to the
full-precision ones), which is why it is a separate backend with its own model name.
"""

from __future__ import annotations

import hashlib
import json
import os
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from graphmem.errors import ConfigurationError

EXPORT_VERSION = "1"  # bump when the exported graph changes
MAX_BATCH = 16  # ONNX Runtime ran LoCoMo turns fastest in batches of 16 (178 turns/s; 64: 153)
INPUTS = ("input_ids", "attention_mask", "token_type_ids")


def _check_mean_pooled(path: Path) -> int:
    """The model's max_seq_length; an error for a model ONNX export here does not cover."""
    try:
        modules = [m["type"].rsplit(".", 1)[-1]
                   for m in json.loads((path / "modules.json").read_text())]
        pooling = json.loads((path / "1_Pooling" / "config.json").read_text())
        config = json.loads((path / "sentence_bert_config.json").read_text())
    except (OSError, ValueError, KeyError) as exc:
        raise ConfigurationError(
            f"the onnx backend needs a sentence-transformers model folder at {path}: {exc}; "
            "set GRAPHMEM_EMBEDDING_BACKEND=torch") from exc
    if modules[:2] != ["Transformer", "Pooling"] or not pooling.get("pooling_mode_mean_tokens") \
            or any(v for k, v in pooling.items() if k.startswith("pooling_mode_")
                   and k != "pooling_mode_mean_tokens"):
        raise ConfigurationError(
            f"the onnx backend runs mean-pooled models only ({path} is {modules}); "
            "set GRAPHMEM_EMBEDDING_BACKEND=torch")
    return int(config.get("max_seq_length") or 512)


def export_key(path: Path) -> str:
    digest = hashlib.sha256(EXPORT_VERSION.encode())
    for file in sorted(p for p in path.rglob("*") if p.is_file()):
        stat = file.stat()
        digest.update(f"{file.relative_to(path)}|{stat.st_size}|{stat.st_mtime_ns}".encode())
    return digest.hexdigest()[:16]


def ensure_export(path: Path, cache_dir: Path, quantized: bool = False) -> Path:
    """The ONNX graph of the model at ``path`` (its 8-bit copy when ``quantized``), exported
    first if this machine lacks it."""
    _check_mean_pooled(path)
    graph = cache_dir / "onnx" / f"{path.name}-{export_key(path)}.onnx"
    if not graph.exists():
        export(path, graph)
    if not quantized:
        return graph
    small = graph.with_name(f"{graph.stem}-int8.onnx")
    if not small.exists():
        quantize(graph, small)
    return small


def quantize(graph: Path, out: Path) -> None:
    """Write ``graph`` with 8-bit weights per output channel to ``out`` (atomically)."""
    import logging

    from onnxruntime.quantization import QuantType, quantize_dynamic

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


def export(path: Path, out: Path) -> None:
    """Write the ONNX graph of the model at ``path`` to ``out`` (atomically)."""
    import torch
    from transformers import AutoModel

    class Pooled(torch.nn.Module):
        def __init__(self, model: Any) -> None:
            super().__init__()
            self.model = model

        def forward(self, ids: Any, mask: Any, types: Any) -> Any:
            hidden = self.model(input_ids=ids, attention_mask=mask,
                                token_type_ids=types).last_hidden_state
            weights = mask.unsqueeze(-1).to(hidden.dtype)
            mean = (hidden * weights).sum(1) / weights.sum(1).clamp(min=1e-9)
            return torch.nn.functional.normalize(mean, dim=-1)

    model = AutoModel.from_pretrained(str(path), local_files_only=True).eval()
    sample = torch.ones((2, 8), dtype=torch.long)
    axes = {name: {0: "batch", 1: "tokens"} for name in INPUTS}
    out.parent.mkdir(parents=True, exist_ok=True)
    partial = out.with_name(f"{out.name}.{os.getpid()}.partial")
    with torch.no_grad(), warnings.catch_warnings():
        # the tracer's notes (an index gather, shapes read as constants) do not apply to an
        # encoder run with a mask; the vectors are checked against PyTorch's in the tests
        warnings.simplefilter("ignore")
        torch.onnx.export(Pooled(model), (sample, sample, torch.zeros_like(sample)),
                          str(partial), input_names=list(INPUTS), output_names=["vector"],
                          dynamic_axes={**axes, "vector": {0: "batch"}}, opset_version=17,
                          dynamo=False)
    os.replace(partial, out)  # two processes exporting at once both leave a whole file


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

        self.max_tokens = _check_mean_pooled(path)
        graph = ensure_export(path, cache_dir, quantized)
        self._tokenizer = Tokenizer.from_file(str(path / "tokenizer.json"))
        self._tokenizer.no_padding()
        self._tokenizer.enable_truncation(self.max_tokens)
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads or os.cpu_count() or 1
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        self._session = onnxruntime.InferenceSession(str(graph), options,
                                                     providers=providers)

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
            vectors = self._session.run(None, {"input_ids": ids, "attention_mask": mask,
                                               "token_type_ids": np.zeros_like(ids)})[0]
            if out is None:
                out = np.zeros((len(texts), vectors.shape[1]), dtype=np.float32)
            out[order[start:start + batch_size]] = vectors
        return out if out is not None else np.zeros((0, 0), dtype=np.float32)
