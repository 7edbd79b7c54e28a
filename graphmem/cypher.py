"""Named Cypher statements, loaded from the ``cypher/`` folder.

A name is the file's path below ``cypher/`` without the suffix, e.g. ``"retrieve/turns_rrf"``.
Files hold plain Cypher with ``$parameters`` only, so each can be pasted into Neo4j Browser.
A file may hold several statements separated by ``;`` at the end of a line (schema files do).
A plug-in living outside graphmem adds its own folder with :func:`add_folder`; its names join
the same closed set (``schema/`` files among them are applied with graphmem's own).
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

from graphmem.errors import GraphmemError

_PACKAGED = Path(__file__).parent / "_cypher"  # where wheels carry the folder
_SOURCE = Path(__file__).parent.parent / "cypher"  # a source checkout
_SPLIT = re.compile(r";[ \t]*(?:\n|$)")


_EXTRA: list[Path] = []  # plug-ins' folders, see add_folder


def cypher_dir() -> Path:
    return _PACKAGED if _PACKAGED.is_dir() else _SOURCE


def _files(root: Path) -> dict[str, Path]:
    return {p.relative_to(root).with_suffix("").as_posix(): p for p in root.rglob("*.cypher")}


@cache
def _catalog() -> dict[str, Path]:
    found = _files(cypher_dir())
    for folder in _EXTRA:
        for name, path in _files(folder).items():
            if name in found:
                raise GraphmemError(f"{path} would replace graphmem's Cypher file {name!r}")
            found[name] = path
    return found


def add_folder(folder: Path) -> None:
    """Add a plug-in's folder of ``.cypher`` files (named by their paths below it, which must
    not clash with graphmem's own)."""
    folder = folder.resolve()
    if folder not in _EXTRA:
        _EXTRA.append(folder)
        try:
            _catalog.cache_clear()
            names.cache_clear()
            _catalog()
        except GraphmemError:
            _EXTRA.remove(folder)
            _catalog.cache_clear()
            raise


@cache
def names() -> tuple[str, ...]:
    """Every statement file, as names; this is the closed set `load` accepts."""
    return tuple(sorted(_catalog()))


@cache
def statements(name: str) -> tuple[str, ...]:
    """The statements of one file, comments kept, without the separating semicolons."""
    if name not in names():
        raise GraphmemError(f"no Cypher file named {name!r} under {cypher_dir()}")
    text = _catalog()[name].read_text(encoding="utf-8")
    parts = [part.strip() for part in _SPLIT.split(text)]
    return tuple(p for p in parts if _strip_comments(p))


def load(name: str) -> str:
    """The single statement of a file (raises if the file holds several)."""
    found = statements(name)
    if len(found) != 1:
        raise GraphmemError(f"{name}.cypher holds {len(found)} statements; use statements()")
    return found[0]


def _strip_comments(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("//"))
