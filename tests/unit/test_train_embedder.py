"""`graphmem eval train-embedder` (issue 70): the packaged MiniLM tuned on question -> evidence
pairs of small hand-made files, written as a model folder with its card, that pulls each
trained question towards its evidence turn."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from graphmem.cli import main
from graphmem.providers.embedder import SentenceTransformerEmbedder, packaged_minilm_path
from graphmem.training.embedder import Source, load

from helpers import DATA

pytest.importorskip("sentence_transformers")  # the `train` extra


@pytest.mark.slow  # trains or starts processes: left out of ./run check
def test_tuned_model_is_written_with_its_card_and_moves_questions_to_their_evidence(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from sentence_transformers import SentenceTransformer

    out = tmp_path / "tuned"
    result = CliRunner().invoke(main, [
        "eval", "train-embedder", "--friendsqa", str(DATA / "mini_friendsqa.json"),
        "--longmemeval", str(DATA / "mini_longmemeval.json"), "--per-dataset", "8",
        "--epochs", "3", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert (out / "model.safetensors").exists() and (out / "modules.json").exists()
    card = (out / "README.md").read_text()
    assert "| friendsqa | `mini_friendsqa.json`" in card
    assert "Apache-2.0 (the annotations)" in card and "| longmemeval |" in card
    assert "--longmemeval mini_longmemeval.json --friendsqa mini_friendsqa.json" in card

    plain = SentenceTransformer(str(packaged_minilm_path()), device="cpu")
    sources = [Source("friendsqa", DATA / "mini_friendsqa.json"),
               Source("longmemeval", DATA / "mini_longmemeval.json", "longmemeval")]
    conversations, asked = load(sources, plain)
    assert asked, "the mini files hold questions with evidence"
    tuned = SentenceTransformerEmbedder(str(out), backend="torch")
    before, after = [], []
    for a in asked:
        evidence = [conversations[a.conversation].lines[e] for e in a.evidence]
        q_plain, e_plain = a.vector, conversations[a.conversation].vectors[a.evidence]
        before.append(float(np.mean(e_plain @ q_plain)))
        q, e = tuned.embed([a.text]), tuned.embed(evidence)
        assert np.allclose(np.linalg.norm(e, axis=1), 1.0, atol=1e-5)
        after.append(float(np.mean(e @ q[0])))
    assert np.mean(after) > np.mean(before) + 0.01, (before, after)

    # the folder carries its ONNX graph: graphmem runs it without exporting anything
    def no_export(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("exported at run time")
    monkeypatch.setattr("graphmem.providers.onnx_export.export", no_export)
    onnx = SentenceTransformerEmbedder(str(out), cache_dir=tmp_path / "cache")
    texts = [a.text for a in asked[:4]] + conversations[asked[0].conversation].lines[:4]
    texts.append(" ".join(["a turn long enough to be cut where the model cuts it"] * 60))
    assert np.abs(onnx.embed(texts) - tuned.embed(texts)).max() < 1e-5


def test_training_refuses_no_data() -> None:
    result = CliRunner().invoke(main, ["eval", "train-embedder", "--out", "x"])
    assert result.exit_code == 2
    assert "give at least one of --longmemeval" in result.output
