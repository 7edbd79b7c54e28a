"""What ES-Mem's LLM-free segmentation should compare turns by (issue 50, items 1 and 3): a
topic line embedded per turn, the turns' own vectors (those the turns layer stores, so
segmenting embeds nothing), or a static model distilled from MiniLM.

    python studies/segmentation_signals.py [--static] [--out segmentation_signals.json]

Each variant fits its boundary model on TIAGE train only (as `graphmem eval
calibrate-segmenter` does) and is scored on TIAGE dev and DialSeg711 dev (Pk, WD, F1, Score),
with the seconds it took. "lines" are the turns as the turns layer embeds them
(``A: text`` / ``B: text``), "raw" the bare utterances. ``--static`` adds the static model
(`pip install "model2vec[distill]"`; it is distilled from the packaged MiniLM into a
temporary folder first, about a minute on 2 cores).
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from common import DATA, make_parser, publish

from graphmem.config import Settings
from graphmem.eval.datasets import segmentation_dialogues
from graphmem.eval.segmentation import evaluate
from graphmem.eval.segmenters import dialogue_lines
from graphmem.ingest.layers.events.segmentation import SegmentationConfig, segment
from graphmem.providers.embedder import (
    Embedder,
    MemoEmbedder,
    SentenceTransformerEmbedder,
    Vectors,
    packaged_minilm_path,
)
from graphmem.training.segmenter import Lines, calibrate

FOLDER = DATA / "segmentation"
TOPICS, TURNS = SegmentationConfig(stage_one="topics"), SegmentationConfig(stage_one="turns")


def raw(utterances: Sequence[str]) -> list[str]:
    return list(utterances)


class StaticEmbedder:
    """model2vec's static model: the mean of word-piece vectors, scaled to length 1."""

    def __init__(self, path: Path) -> None:
        from model2vec import StaticModel  # type: ignore[import-not-found]

        self.model = StaticModel.from_pretrained(path, normalize=True, force_download=False)
        self.name, self.dimensions = f"static:{path.name}", int(self.model.dim)

    def embed(self, texts: Sequence[str]) -> Vectors:
        return np.asarray(self.model.encode(list(texts), use_multiprocessing=False),
                          dtype=np.float32)


def distilled(folder: Path) -> StaticEmbedder:
    from model2vec.distill import distill  # type: ignore[import-not-found]

    distill(model_name=str(packaged_minilm_path()), pca_dims=256).save_pretrained(str(folder))
    return StaticEmbedder(folder)


def figures(embedder: Embedder, config: SegmentationConfig, lines: Lines,
            turns: Embedder | None = None) -> dict[str, Any]:
    """Fitted on TIAGE train, scored on the dev splits; ``turns`` embeds the turn vectors
    (``embedder`` by default)."""
    started = time.perf_counter()
    turns = turns or embedder
    model, train = calibrate(FOLDER / "tiage_train.jsonl", embedder, config, progress=False,
                             lines=lines, turns=turns)
    out: dict[str, Any] = {"threshold": model.threshold, "train_score": round(train, 4)}
    for name in ("tiage_dev", "dialseg711_dev"):
        pairs = [(d.boundaries, segment(list(d.utterances), embedder, config, None, model,
                                        turns.embed(lines(d.utterances))).boundaries,
                  len(d.utterances))
                 for d in segmentation_dialogues(FOLDER / f"{name}.jsonl")]
        s = evaluate(pairs)
        out[name] = {"score": round(s.score, 4), "pk": round(s.pk, 4), "wd": round(s.wd, 4),
                     "f1": round(s.f1, 4)}
    out["seconds"] = round(time.perf_counter() - started, 1)
    return out


def main() -> None:
    parser = make_parser(__doc__)
    parser.add_argument("--static", action="store_true", help="also the static model")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    minilm = MemoEmbedder(SentenceTransformerEmbedder.from_settings(Settings()), 1_000_000)
    result = {
        "topic lines, raw turns (before session 31)": figures(minilm, TOPICS, raw),
        "turn vectors, lines (shipped)": figures(minilm, TURNS, dialogue_lines),
        "turn vectors, raw": figures(minilm, TURNS, raw),
        "topic lines, turn lines": figures(minilm, TOPICS, dialogue_lines)}
    if args.static:
        with tempfile.TemporaryDirectory() as folder:
            static = distilled(Path(folder) / "static")
            result["static topic lines, turn lines"] = figures(static, TOPICS, dialogue_lines,
                                                               minilm)
            result["static topic lines, static raw turns"] = figures(static, TOPICS, raw)
    publish(result, args.out)


if __name__ == "__main__":
    main()
