"""MemDecider: its features, the shipped model (loads offline, scores every turn), and the
training pieces (folds keep conversations whole, both stages learn a separable signal, the
threshold maximises the step reward)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from graphmem.ingest.layers.episodes.memdecider import (
    HAND_FEATURES,
    METRICS_PATH,
    MODEL_PATH,
    TurnText,
    hand_features,
    linguistic,
    load_memdecider,
    training_metrics,
)
from graphmem.training.memdecider import (
    Episode,
    TrainConfig,
    admission,
    best_tau,
    fit,
    fold_of,
)


def test_linguistic_statistics() -> None:
    plain, asking = linguistic(TurnText("I adopted 2 cats in May!")), linguistic(
        TurnText("What? Why would you?", has_image=True))
    assert plain[0] == pytest.approx(np.log1p(6))  # six words
    assert plain[1] == 1.0 and plain[2] == pytest.approx(np.log1p(1))  # all distinct; a digit
    assert plain[5] == 0.0 and asking[5] == 1.0  # the image flag
    assert asking[6] == pytest.approx(np.log1p(4)) and plain[6] == 0.0  # 2 marks + what, why


def test_syntactic_counts_come_from_spacy() -> None:
    rows = hand_features([TurnText("Melanie flew to Paris on Friday to see her sister."),
                          TurnText("ok")])
    assert rows.shape == (2, len(HAND_FEATURES))
    named = dict(zip(HAND_FEATURES, rows[0], strict=True))
    assert named["persons"] > 0 and named["places"] > 0 and named["times"] > 0
    assert named["verbs"] > 0 and named["nouns"] > 0
    assert not rows[1][7:].any()  # "ok" names nothing


def test_the_shipped_model_loads_offline_and_scores_in_range() -> None:
    model = load_memdecider(MODEL_PATH)
    assert MODEL_PATH.stat().st_size < 200_000  # a small file
    assert 0.0 < model.tau < 1.0
    turns = [TurnText("I'm starting a new job as a nurse at St. Mary's next Monday."),
             TurnText("lol")]
    rng = np.random.default_rng(0)
    vectors = rng.normal(size=(2, model.w1.shape[0] - len(HAND_FEATURES))).astype(np.float32)
    scores = model.scores(vectors, hand_features(turns))
    assert scores.shape == (2,) and ((scores >= 0) & (scores <= 1)).all()
    metrics = training_metrics()
    assert metrics["tau"] == pytest.approx(model.tau, abs=1e-6)
    assert metrics["stage2"]["pooled"]["roc_auc"] > 0.7  # held-out conversations
    assert json.loads(METRICS_PATH.read_text())["validation"].startswith("out-of-fold")


def test_a_model_for_other_features_is_refused(tmp_path: Path) -> None:
    model = load_memdecider(MODEL_PATH)
    path = tmp_path / "old.npz"
    np.savez(path, mean=model.mean, scale=model.scale, w1=model.w1, b1=model.b1, w2=model.w2,
             b2=np.float32(model.b2), tau=np.float32(model.tau), features=np.asarray(["length"]))
    with pytest.raises(ValueError, match="trained for features"):
        load_memdecider(path)


def toy_episodes(n: int, seed: int) -> list[Episode]:
    """Conversations whose evidence turns point one way in embedding space."""
    rng = np.random.default_rng(seed)
    out = []
    for e in range(n):
        labels = (rng.random(60) < 0.25).astype(np.float32)
        vectors = rng.normal(size=(60, 8)).astype(np.float32)
        vectors[:, 0] += 2.5 * labels
        hand = rng.normal(size=(60, len(HAND_FEATURES))).astype(np.float32)
        positives = np.flatnonzero(labels)
        out.append(Episode(f"c{e}", "toy" if e % 2 else "other", vectors, hand, labels,
                           [positives[:2], positives[2:4]]))
    return out


def test_folds_hold_whole_conversations_out_of_every_dataset() -> None:
    eps = toy_episodes(10, 0)
    folds = fold_of(eps, 5)
    assert len(folds) == len(eps)  # one fold per conversation: its turns never split
    for k in range(5):
        assert {e.dataset for e, f in zip(eps, folds, strict=True) if f == k} == {"toy", "other"}


def test_both_stages_learn_and_generalise_to_new_conversations() -> None:
    train, test = toy_episodes(8, 1), toy_episodes(2, 2)
    config = TrainConfig(hidden=8, epochs=40, learning_rate=1e-2, rl_epochs=5, rollouts=4)
    for model in fit(train, config):
        from sklearn.metrics import roc_auc_score

        scores = np.concatenate([model.scores(e.vectors, e.hand) for e in test])
        labels = np.concatenate([e.labels for e in test])
        assert roc_auc_score(labels, scores) > 0.85


def test_the_threshold_maximises_the_step_reward() -> None:
    labels = np.asarray([1, 1, 0, 0, 0, 0], dtype=np.float32)
    scores = np.asarray([0.9, 0.6, 0.62, 0.3, 0.2, 0.1])
    kept = admission(scores, labels, 0.5)
    assert kept["admitted"] == 0.5 and kept["evidence_admitted"] == 1.0
    assert kept["step_reward_per_turn"] == pytest.approx((2 + 2 - 0.5) / 6, abs=1e-4)
    assert best_tau(scores, labels) in (0.35, 0.4, 0.45, 0.5, 0.55, 0.6)


def test_a_retrained_model_changes_the_layer_fingerprint(tmp_path: Path) -> None:
    from graphmem.config import Settings
    from graphmem.ingest.layer import with_options
    from graphmem.ingest.layers.episodes.layer import EpisodeLayer

    copy = tmp_path / "model.npz"
    copy.write_bytes(MODEL_PATH.read_bytes())
    settings = with_options(Settings(), "episodes", model=copy)
    first = EpisodeLayer.fingerprint(settings)
    assert first == EpisodeLayer.fingerprint(Settings())  # same bytes, same fingerprint
    copy.write_bytes(MODEL_PATH.read_bytes() + b"\0")
    assert EpisodeLayer.fingerprint(settings) != first  # cached eval spaces are not reused


class _Named:
    """An embedder that is only a name and a length: what the layer checks before any work."""

    def __init__(self, name: str, dimensions: int) -> None:
        self.name, self.dimensions = name, dimensions

    def embed(self, texts: list[str]) -> np.ndarray:
        raise AssertionError("the check runs before anything is embedded")


@pytest.mark.parametrize(("name", "dimensions", "refused"), [
    ("all-MiniLM-L6-v2", 384, False), ("all-MiniLM-L6-v2+int8", 384, False),
    ("hash-384", 384, False), ("embeddinggemma-300m", 768, True),
    ("embeddinggemma-300m@384", 384, True), ("/models/tuned-minilm", 384, True)])
def test_the_episodes_layer_refuses_vectors_its_memdecider_never_read(
        name: str, dimensions: int, refused: bool, tmp_path: Path) -> None:
    from typing import cast

    from graphmem.errors import ConfigurationError
    from graphmem.ingest.layer import LayerContext
    from graphmem.ingest.layers.episodes import EpisodeLayer
    from graphmem.providers.embedder import Embedder
    from graphmem.store import GraphStore

    context = LayerContext(cast(GraphStore, None), cast(Embedder, _Named(name, dimensions)))
    if not refused:
        EpisodeLayer(context)
        return
    with pytest.raises(ConfigurationError, match=r"train-memdecider .*GRAPHMEM_EPISODES_MODEL"):
        EpisodeLayer(context)
    # one trained on that embedder's vectors is taken
    from dataclasses import replace

    shipped = load_memdecider()
    width = dimensions + len(HAND_FEATURES)
    rng = np.random.default_rng(0)
    own = replace(shipped, w1=rng.normal(size=(width, shipped.w1.shape[1])).astype(np.float32),
                  embedder=name)
    path = tmp_path / "own.npz"
    own.save(path)
    assert load_memdecider(path).embedder == name
    from graphmem.config import Settings

    settings = Settings(layer_options={"episodes": {"model": str(path)}})
    EpisodeLayer(LayerContext(cast(GraphStore, None),
                              cast(Embedder, _Named(name, dimensions)), settings=settings))
