"""Loading plug-ins: one that fails in any way at import, sys.exit included, is listed as
failed and named; graphmem goes on without it."""

from __future__ import annotations

import logging
from importlib.metadata import EntryPoint
from pathlib import Path

import pytest

from graphmem import plugins


@pytest.fixture()
def fresh(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """Plug-ins loaded anew from modules written in ``tmp_path``."""
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(plugins, "_started", False)
    monkeypatch.setattr(plugins, "_loaded", {})
    monkeypatch.setattr(plugins, "_failed", {})
    return tmp_path


def test_a_plugin_that_exits_or_raises_is_a_failed_plugin(
        fresh: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    (fresh / "exits_at_import.py").write_text("import sys\nsys.exit(3)\n")
    (fresh / "raises_at_import.py").write_text("raise RuntimeError('no config')\n")
    (fresh / "fine_plugin.py").write_text("LOADED = True\n")
    points = [EntryPoint(name, value, plugins.GROUP) for name, value in (
        ("exits", "exits_at_import"), ("raises", "raises_at_import"), ("fine", "fine_plugin"))]
    monkeypatch.setattr(plugins, "entry_points", lambda group: points)
    with caplog.at_level(logging.WARNING, logger="graphmem"):
        assert plugins.loaded_plugins() == {"fine": "fine_plugin"}
    assert plugins.failed_plugins() == {"exits": "it called sys.exit(3) while loading",
                                        "raises": "RuntimeError: no config"}
    assert "was not loaded: it called sys.exit(3)" in caplog.text  # the status, named
