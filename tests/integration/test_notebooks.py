"""The notebooks run from top to bottom against the real server (the walkthrough in a space of
its own, which it removes), with no cell failing."""

from __future__ import annotations

from pathlib import Path

import nbclient
import nbformat
import pytest

from graphmem.store import GraphStore

NOTEBOOKS = sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("*.ipynb"))


def test_there_are_notebooks() -> None:
    assert {p.name for p in NOTEBOOKS} >= {"walkthrough.ipynb", "results.ipynb"}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs(path: Path, store: GraphStore) -> None:
    book = nbformat.read(path, as_version=4)
    nbclient.NotebookClient(book, timeout=600, kernel_name="python3",
                            resources={"metadata": {"path": str(path.parent)}}).execute()
    outputs = [o for cell in book.cells if cell.cell_type == "code" for o in cell.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    assert any("image/png" in o.get("data", {}) for o in outputs)  # it drew its picture
    left = [r["space"] for r in store.read("admin/list_spaces") if r["space"].startswith(path.stem)]
    assert left == []  # a notebook's space is named after it, and it removes it
