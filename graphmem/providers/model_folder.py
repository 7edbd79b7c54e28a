"""What a sentence-transformers model folder says about the model, read without loading it:
its modules (a transformer, mean pooling, optional Dense layers, normalisation), the longest
input, the prompts it was trained with, and what ``graphmem models install`` recorded."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from graphmem.config import MODEL_MANIFEST
from graphmem.errors import ConfigurationError

MANIFEST = MODEL_MANIFEST  # the file graphmem models install writes into a model folder

_SUPPORTED = {"Transformer", "Pooling", "Dense", "Normalize"}


@dataclass(frozen=True)
class Layout:
    """A mean-pooled model: its longest input in tokens, and the text put before a query and
    before a document (empty for a model trained without prompts, such as MiniLM)."""

    max_tokens: int
    query_prompt: str
    document_prompt: str
    matryoshka: tuple[int, ...]  # the shorter lengths its vectors may be cut to, if any


def _json(path: Path) -> Any:
    return json.loads(path.read_text())


def modules(path: Path) -> list[dict[str, Any]]:
    try:
        return list(_json(path / "modules.json"))
    except (OSError, ValueError) as exc:
        raise ConfigurationError(
            f"the onnx backend needs a sentence-transformers model folder at {path}: {exc}; "
            "set GRAPHMEM_EMBEDDING_BACKEND=torch") from exc


def prompted(path: Path) -> Layout:
    """What any sentence-transformers folder says of its prompts and Matryoshka lengths, whatever
    its modules (PyTorch runs every kind; the ONNX path only :func:`layout`'s)."""
    recorded = installed_manifest(path) or {}
    prompts = _prompts(path)
    return Layout(0, prompts.get("query", ""), prompts.get("document", ""),
                  tuple(int(d) for d in recorded.get("matryoshka", ())))


def layout(path: Path) -> Layout:
    """The folder's layout; an error for a model the ONNX path here does not cover."""
    kinds = [m["type"].rsplit(".", 1)[-1] for m in modules(path)]
    try:
        pooling = _json(path / "1_Pooling" / "config.json")
        config = _json(path / "sentence_bert_config.json")
    except (OSError, ValueError) as exc:
        raise ConfigurationError(
            f"the onnx backend needs a sentence-transformers model folder at {path}: {exc}; "
            "set GRAPHMEM_EMBEDDING_BACKEND=torch") from exc
    # sentence-transformers before 6 wrote one flag per pooling mode, from 6 on one name
    mean = pooling.get("pooling_mode") == "mean" if "pooling_mode" in pooling else (
        pooling.get("pooling_mode_mean_tokens") and not any(
            v for k, v in pooling.items()
            if k.startswith("pooling_mode_") and k != "pooling_mode_mean_tokens"))
    if kinds[:2] != ["Transformer", "Pooling"] or not mean or not set(kinds) <= _SUPPORTED:
        raise ConfigurationError(
            f"the onnx backend runs mean-pooled models only (a transformer, mean pooling, "
            f"Dense layers, normalisation; {path} is {kinds}); "
            "set GRAPHMEM_EMBEDDING_BACKEND=torch")
    prompts = _prompts(path)
    recorded = installed_manifest(path) or {}
    return Layout(int(config.get("max_seq_length") or _tokenizer_limit(path) or 512),
                  prompts.get("query", ""), prompts.get("document", ""),
                  tuple(int(d) for d in recorded.get("matryoshka", ())))


def _prompts(path: Path) -> dict[str, str]:
    try:
        prompts = _json(path / "config_sentence_transformers.json").get("prompts") or {}
    except (OSError, ValueError):
        return {}
    return {k: v for k, v in prompts.items() if isinstance(v, str)}


def _tokenizer_limit(path: Path) -> int | None:
    """The longest input the model's tokenizer config allows (where sentence-transformers 6
    keeps a model's max_seq_length)."""
    try:
        limit = _json(path / "tokenizer_config.json").get("model_max_length")
    except (OSError, ValueError):
        return None
    return int(limit) if isinstance(limit, int) and limit < 100_000 else None


def dense_modules(path: Path) -> list[dict[str, Any]]:
    """The model's Dense modules after pooling, in order (none for MiniLM)."""
    return [m for m in modules(path) if m["type"].endswith(".Dense")]


def dense_layers(path: Path) -> list[np.ndarray]:
    """The weight matrices (out × in) of the model's Dense layers after pooling, in order;
    each must be linear (no bias, identity activation), as EmbeddingGemma's are."""
    from safetensors.numpy import load_file

    found = []
    for module in dense_modules(path):
        folder = path / module["path"]
        config = _json(folder / "config.json")
        if config.get("bias") or not str(config.get("activation_function", "")).endswith(
                "Identity"):
            raise ConfigurationError(f"{folder}: only linear Dense layers (no bias, identity "
                                     "activation) are exported to ONNX here")
        found.append(load_file(str(folder / "model.safetensors"))["linear.weight"])
    return found


def installed_manifest(path: Path) -> dict[str, Any] | None:
    """What ``graphmem models install`` recorded about the model in ``path``, if it did."""
    try:
        return dict(_json(path / MANIFEST))
    except (OSError, ValueError):
        return None
