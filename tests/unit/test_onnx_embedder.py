"""The ONNX Runtime backend of the embedder: the packaged MiniLM's shipped graph gives
PyTorch's vectors, in the input's order, across batches and the model's length limit, without
PyTorch installed or anything exported; the shipped graph is the one the exporter makes today
from weights whose checksum it pins; a model it cannot run is a clear error."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from graphmem.errors import ConfigurationError
from graphmem.providers.embedder import SentenceTransformerEmbedder, packaged_minilm_path
from graphmem.providers.onnx_model import SHIPPED, OnnxSentenceModel, shipped_graph

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
    onnx.prepare()
    assert not (tmp_path / "onnx").exists()  # the shipped graph: nothing made on this machine


def test_the_shipped_graph_is_todays_export_of_the_pinned_weights(tmp_path: Path) -> None:
    from graphmem.training.onnx_export import sha256, weightless

    path = packaged_minilm_path()
    manifest = json.loads((SHIPPED / "all-MiniLM-L6-v2.json").read_text())
    assert sha256(path / "model.safetensors") == manifest["weights"]["sha256"]
    assert sha256(path / "tokenizer.json") == manifest["tokenizer_sha256"]
    shipped = shipped_graph(path)
    assert shipped is not None and shipped.graph.stat().st_size < 500_000  # no weights inside
    made = weightless(path, tmp_path, "all-MiniLM-L6-v2")
    assert json.loads((tmp_path / "all-MiniLM-L6-v2.json").read_text())["bound"] \
        == manifest["bound"]
    fresh = type(shipped)(made, shipped.weights, shipped.bound, "fresh")
    import onnxruntime

    options = onnxruntime.SessionOptions()
    tensors = fresh.tensors()
    options.add_external_initializers(list(tensors), [
        onnxruntime.OrtValue.ortvalue_from_numpy(v) for v in tensors.values()])
    session = onnxruntime.InferenceSession(made.read_bytes(), options)
    ids = np.array([[101, 2054, 3114, 2003, 1996, 3899, 1029, 102]])
    feed = {"input_ids": ids, "attention_mask": np.ones_like(ids),
            "token_type_ids": np.zeros_like(ids)}
    shipped_vector = OnnxSentenceModel(path, tmp_path / "cache")._session.run(None, feed)[0]
    assert np.abs(session.run(None, feed)[0] - shipped_vector).max() < 1e-6
    # weights that are not the pinned ones get no shipped graph (they would be exported)
    other = tmp_path / "other"
    other.mkdir()
    (other / "model.safetensors").write_bytes(b"\x02\x00\x00\x00\x00\x00\x00\x00{}")
    assert shipped_graph(other) is None


def test_searching_needs_no_pytorch(tmp_path: Path) -> None:
    """With torch, transformers and sentence-transformers unimportable, the default embedder
    runs; the torch backend says which extra brings PyTorch."""
    script = f"""
import sys
for name in ("torch", "transformers", "sentence_transformers"):
    sys.modules[name] = None
from graphmem.providers.embedder import SentenceTransformerEmbedder
from graphmem.errors import ConfigurationError
vectors = SentenceTransformerEmbedder(cache_dir=__import__("pathlib").Path({str(tmp_path)!r}))
print(vectors.embed(["a dog", "a greyhound"]).shape)
try:
    SentenceTransformerEmbedder(backend="torch").embed(["x"])
except ConfigurationError as exc:
    print(exc)
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert "(2, 384)" in done.stdout and "graphmem[train]" in done.stdout


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
    assert len(list((tmp_path / "onnx").glob("*.onnx"))) == 2  # the weights bound, then 8-bit
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


def test_the_shipped_weights_are_mapped_as_safetensors_reads_them() -> None:
    """The weights handed to ONNX Runtime are views of the mapped file (no copy read into
    memory): each has the name, type, shape and values safetensors' own reader gives."""
    from safetensors.numpy import load_file

    shipped = shipped_graph(packaged_minilm_path())
    assert shipped is not None
    read = load_file(str(shipped.weights))
    mapped = shipped.tensors()
    assert set(mapped) == set(shipped.bound)
    for name, key in shipped.bound.items():
        assert isinstance(mapped[name].base, np.memmap) or isinstance(mapped[name], np.memmap)
        assert mapped[name].dtype == read[key].dtype and mapped[name].shape == read[key].shape
        assert np.array_equal(mapped[name], read[key])


def test_idle_pool_threads_sleep_rather_than_spin(tmp_path: Path) -> None:
    """A loaded server embeds a little, often, from many threads: ONNX Runtime's pool threads
    must not spin between those calls (one held half of a core in `benchmarks/service_load.py`)."""
    model = OnnxSentenceModel(packaged_minilm_path(), tmp_path, threads=2)
    options = model._session.get_session_options()
    assert options.get_session_config_entry("session.intra_op.allow_spinning") == "0"
    assert options.intra_op_num_threads == 2
    assert model.encode(["still embeds"], 8).shape == (1, 384)
