"""The ONNX Runtime backend of the embedder: the packaged MiniLM exported on this machine gives
PyTorch's vectors, in the input's order, across batches and the model's length limit; the
export is made once; a model it cannot run is a clear error."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from graphmem.errors import ConfigurationError
from graphmem.providers.embedder import SentenceTransformerEmbedder
from graphmem.providers.onnx_model import OnnxSentenceModel

TEXTS = ["Maya adopted a three-year-old greyhound.", "ok", "",
         "Jonas ran the Lisbon half marathon; his knee held up until kilometre 18. " * 30,
         "Zoë's café in Zürich serves 🍰 on Sundays.", "What breed is the dog?"]


def test_onnx_gives_the_vectors_of_pytorch(tmp_path: Path) -> None:
    onnx = SentenceTransformerEmbedder(backend="onnx", cache_dir=tmp_path, batch_size=2)
    torch = SentenceTransformerEmbedder(backend="torch", batch_size=2)
    a, b = onnx.embed(TEXTS), torch.embed(TEXTS)
    assert a.shape == b.shape == (len(TEXTS), 384) and a.dtype == np.float32
    assert np.abs(a - b).max() < 1e-5  # the long text is cut at 256 tokens by both
    assert np.allclose(np.linalg.norm(a, axis=1), 1.0, atol=1e-5)
    assert np.abs(onnx.embed(TEXTS[::-1]) - b[::-1]).max() < 1e-5  # order is the input's
    assert onnx.embed([]).shape == (0, 384)
    [graph] = (tmp_path / "onnx").glob("*.onnx")
    made = graph.stat().st_mtime_ns
    again = SentenceTransformerEmbedder(backend="onnx", cache_dir=tmp_path)
    assert np.abs(again.embed(TEXTS[:1]) - b[:1]).max() < 1e-5
    assert graph.stat().st_mtime_ns == made  # exported once, then reused
    assert not list((tmp_path / "onnx").glob("*.partial"))


def test_a_model_onnx_cannot_run_is_a_clear_error(tmp_path: Path) -> None:
    model = tmp_path / "cls-model"
    (model / "1_Pooling").mkdir(parents=True)
    (model / "modules.json").write_text(json.dumps([
        {"type": "sentence_transformers.models.Transformer"},
        {"type": "sentence_transformers.models.Pooling"}]))
    (model / "1_Pooling" / "config.json").write_text(json.dumps(
        {"pooling_mode_cls_token": True, "pooling_mode_mean_tokens": False}))
    (model / "sentence_bert_config.json").write_text("{}")
    with pytest.raises(ConfigurationError, match="mean-pooled models only"):
        OnnxSentenceModel(model, tmp_path)
    with pytest.raises(ConfigurationError, match="GRAPHMEM_EMBEDDING_BACKEND=torch"):
        OnnxSentenceModel(tmp_path / "nowhere", tmp_path)
    with pytest.raises(ConfigurationError, match="choose onnx, onnx-int8, torch"):
        SentenceTransformerEmbedder(backend="tensorflow")


def test_the_8_bit_backend_is_close_to_the_model_and_named_apart(tmp_path: Path) -> None:
    full = SentenceTransformerEmbedder(backend="onnx", cache_dir=tmp_path)
    small = SentenceTransformerEmbedder(backend="onnx-int8", cache_dir=tmp_path, batch_size=2)
    texts = [t for t in TEXTS if t]
    a, b = full.embed(texts), small.embed(texts)
    assert b.shape == a.shape and b.dtype == np.float32
    assert np.allclose(np.linalg.norm(b, axis=1), 1.0, atol=1e-5)
    cosine = (a * b).sum(axis=1)
    assert cosine.min() > 0.95 and cosine.mean() > 0.98  # near the model's vectors...
    assert np.abs(a - b).max() > 1e-4  # ...but not the same graph run twice
    # the question's nearest text is the same under both
    assert int(np.argmax(a[:-1] @ a[-1])) == int(np.argmax(b[:-1] @ b[-1])) == 0
    assert small.name == "all-MiniLM-L6-v2+int8" and full.name == "all-MiniLM-L6-v2"
    assert len(list((tmp_path / "onnx").glob("*.onnx"))) == 2
    [quantized] = (tmp_path / "onnx").glob("*-int8.onnx")
    made = quantized.stat().st_mtime_ns
    SentenceTransformerEmbedder(backend="onnx-int8", cache_dir=tmp_path).embed(texts[:1])
    assert quantized.stat().st_mtime_ns == made  # quantised once


def test_the_device_chooses_onnx_runtimes_provider(monkeypatch: pytest.MonkeyPatch) -> None:
    import onnxruntime

    from graphmem.providers.onnx_model import execution_providers

    assert execution_providers("cpu") == ["CPUExecutionProvider"]
    if "CUDAExecutionProvider" not in onnxruntime.get_available_providers():
        # this machine's ONNX Runtime has no CUDA: asking for it says what to install, and the
        # embedder fails on its first use, before any vector is made
        with pytest.raises(ConfigurationError, match="onnxruntime-gpu"):
            execution_providers("cuda")
        gpu = SentenceTransformerEmbedder(backend="onnx", device="cuda")
        with pytest.raises(ConfigurationError, match="onnxruntime-gpu"):
            gpu.embed(["hello"])
    with pytest.raises(ConfigurationError, match="'cpu' or 'cuda'"):
        execution_providers("tpu")
    with pytest.raises(ConfigurationError, match="'cpu' or 'cuda'"):
        execution_providers("cuda:first")
    # with an ONNX Runtime that offers CUDA (onnxruntime-gpu), the GPU comes first
    monkeypatch.setattr(onnxruntime, "get_available_providers",
                        lambda: ["CUDAExecutionProvider", "CPUExecutionProvider"])
    assert execution_providers("cuda:1") == [("CUDAExecutionProvider", {"device_id": 1}),
                                             "CPUExecutionProvider"]
    assert execution_providers("cuda")[0] == ("CUDAExecutionProvider", {"device_id": 0})
    with pytest.raises(ConfigurationError, match="8-bit"):
        execution_providers("cuda", quantized=True)
