"""The TypeScript client's own suite (clients/typescript, `npm test`): built with tsc, then run
by node against a real `graphmem serve` that it starts on the local Neo4j, plus the check
that its types are generated from the committed schema."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from helpers import TESTS

CLIENT = TESTS.parent / "clients" / "typescript"


def test_typescript_client_suite() -> None:
    npm = shutil.which("npm")
    assert npm is not None, "the TypeScript client's tests need Node 20 and npm on the PATH"
    if not (CLIENT / "node_modules" / ".bin" / "tsc").exists():
        subprocess.run([npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=CLIENT,
                       check=True, timeout=600)
    done = subprocess.run([npm, "test"], cwd=CLIENT, capture_output=True, text=True,
                          timeout=600, env={**os.environ, "GRAPHMEM_PYTHON": sys.executable})
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    # every case the suite's files declare ran and passed (none skipped or lost)
    cases = sum(len(re.findall(r"^test\(", path.read_text(encoding="utf-8"), re.M))
                for path in (CLIENT / "test").glob("*.ts"))
    assert cases >= 5
    assert "# fail 0" in done.stdout and f"# pass {cases}\n" in done.stdout, \
        done.stdout[-2000:]


def test_the_typescript_package_carries_its_build(tmp_path: Path) -> None:
    """Packed (npm pack, or installed from a folder or git), the package builds dist/ first
    (its prepare script), so `import "@graphmem/client"` finds the compiled module."""
    npm = shutil.which("npm")
    assert npm is not None
    if not (CLIENT / "node_modules" / ".bin" / "tsc").exists():
        subprocess.run([npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=CLIENT,
                       check=True, timeout=600)
    shutil.rmtree(CLIENT / "dist" / "src", ignore_errors=True)
    packed = subprocess.run([npm, "pack", "--json", "--pack-destination", str(tmp_path)],
                            cwd=CLIENT, capture_output=True, text=True, timeout=300)
    assert packed.returncode == 0, packed.stderr[-2000:]
    [made] = json.loads(packed.stdout[packed.stdout.index("["):])
    files = {f["path"] for f in made["files"]}
    assert {"dist/src/index.js", "dist/src/index.d.ts", "dist/src/ai.js"} <= files
    assert not any(f.startswith(("dist/test", "node_modules")) for f in files)
