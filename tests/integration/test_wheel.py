"""graphmem as a user installs it: `python -m build` makes a wheel and an sdist; the wheel with
the server extra goes into a fresh virtualenv without PyTorch or a CUDA library, within the
install size the docs promise, and its CLI ingests and searches against the real Neo4j with
the model files the wheel carries (nothing exported or downloaded when it runs)."""

from __future__ import annotations

import os
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

from helpers import TESTS

ROOT = TESTS.parent
MAX_INSTALL = 1.2e9  # bytes of site-packages for graphmem[server] (docs/deploy.md)


def test_the_built_wheel_installs_light_and_searches(space: str, tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    subprocess.run([sys.executable, "-m", "build", "--outdir", str(dist), str(ROOT)],
                   check=True, capture_output=True, timeout=900)
    [wheel] = dist.glob("graphmem-*.whl")
    [sdist] = dist.glob("graphmem-*.tar.gz")
    with zipfile.ZipFile(wheel) as archive:
        inside = set(archive.namelist())
    model = "graphmem/providers/models/all-MiniLM-L6-v2"
    assert {f"{model}/model.safetensors", f"{model}/tokenizer.json",
            "graphmem/providers/models/all-MiniLM-L6-v2.onnx",
            "graphmem/_cypher/retrieve/space_turns.cypher",
            # the console's page: shipped, nothing fetched or built at run time
            *(f"graphmem/serve/console/{name}" for name in
              ("index.html", "console.js", "console.css"))} <= inside
    with tarfile.open(sdist) as archive:
        names = archive.getnames()
    assert any(n.endswith("/hatch_build.py") for n in names)
    assert not any("node_modules" in n or n.endswith(".safetensors") for n in names)

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    python = venv / "bin" / "python"
    installed = subprocess.run([str(python), "-m", "pip", "install", "--quiet",
                                f"{wheel}[server]"], capture_output=True, text=True,
                               timeout=1800)
    assert installed.returncode == 0, installed.stderr[-3000:]
    missing = subprocess.run([str(python), "-c", "import torch"], capture_output=True)
    assert missing.returncode != 0  # no PyTorch, hence no CUDA libraries
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; "
                                "print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())
    size = sum(f.stat().st_size for f in site.rglob("*") if f.is_file())
    assert size < MAX_INSTALL, f"graphmem[server] installs {size / 1e9:.2f} GB"
    assert not any(p.name.startswith(("nvidia", "torch", "triton")) for p in site.iterdir())

    env = {**os.environ, "GRAPHMEM_HOME": str(tmp_path / "home")}
    cli = venv / "bin" / "graphmem"
    sample = ROOT / "graphmem" / "data" / "sample_conversation.json"
    subprocess.run([str(cli), "ingest", str(sample), "--space", space, "--layers", ""],
                   check=True, capture_output=True, timeout=600, env=env, cwd=tmp_path)
    found = subprocess.run([str(cli), "search", "Which dog did Maya adopt?", "--space", space,
                            "--strategy", "turns"], capture_output=True, text=True,
                           timeout=600, env=env, cwd=tmp_path)
    assert found.returncode == 0, found.stderr[-2000:]
    assert "greyhound" in found.stdout.lower(), found.stdout
    assert not (tmp_path / "home" / "cache" / "onnx").exists()  # the shipped graph ran
