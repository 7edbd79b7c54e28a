"""Vectors of units made of turns, from their turns' vectors (issue 50, item 2): what it does
to `graphmem` on the leave-one-dataset-out matrix, by category, before any ingestion changes.

    python benchmarks/composed_vectors.py [--kinds units,scenes,episodes] [--conversations 8] \
        [--out composed_vectors.json]

MMS retrieval units, scenes and EMA episodic units are each made of turns whose vectors the
turns layer already computed; ingestion embeds their texts again (2.18x, 1.10x and 0.72x the
turns' own word pieces). Here every unit of ``--kinds`` is given, at search time, the mean of
its turns' unit vectors (scaled to length 1) in place of its stored vector; then the
candidates are collected again (`ranker_transfer.py`'s datasets, cached apart), the shipped
recipe is fitted without each dataset in turn and measured on it under the shipped packing
rule, as for the vectors ingestion stores (the baseline, the same questions). Each dataset's
gap comes with its standard error (questions resampled, paired).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from common import make_parser, publish
from coverage_packing import BUDGETS, held_out_p, per_question, question_score, rows_of
from ranker_transfer import samples as collect_samples

import graphmem.retrieve.fused.space_vectors as space_vectors_module
import graphmem.training.ranker as ranker_module
from graphmem.ingest.embedding_rows import mean_vector
from graphmem.retrieve.fused.space_vectors import DenseUnits, SpaceVectors
from graphmem.training import transfer
from graphmem.training.samples import Sample


def composed(units: DenseUnits, turns: DenseUnits) -> DenseUnits:
    """``units`` with each vector replaced by the normalised mean of its turns' vectors
    (a unit none of whose turns has a vector keeps its own)."""
    at = {i: n for n, i in enumerate(turns.ids)}
    matrix = units.vectors.copy()
    for n, members in enumerate(units.turn_ids):
        rows = [at[t] for t in members if t in at]
        if rows:
            matrix[n] = mean_vector(turns.vectors[rows])
    return DenseUnits(units.ids, matrix, units.turn_ids, units.hashes)


def patch(kinds: tuple[str, ...]) -> None:
    """Searches (and the candidates collected) see composed vectors for ``kinds``; their
    candidates are cached under their own name."""
    read = space_vectors_module.read_space_vectors

    def reading(*args: Any, **kw: Any) -> SpaceVectors:
        found = read(*args, **kw)
        turns = found.sources.get("vector")
        if turns is None:
            return found
        return SpaceVectors({k: composed(u, turns) if k in kinds else u
                             for k, u in found.sources.items()})

    space_vectors_module.read_space_vectors = reading
    version = ranker_module._version
    ranker_module._version = (
        lambda prefix: f"{version(prefix)}-composed-{'-'.join(kinds)}")


def main() -> None:
    parser = make_parser(__doc__)
    parser.add_argument("--kinds", default="units,scenes,episodes",
                        help="the sources whose vectors are composed, separated by commas")
    parser.add_argument("--conversations", type=int, default=8)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    kinds = tuple(sorted(k.strip() for k in args.kinds.split(",")))
    before = collect_samples(args.conversations, False)
    patch(kinds)
    after = collect_samples(args.conversations, False)
    result: dict[str, Any] = {"kinds": list(kinds),
                              "datasets": compare(before, after, "stored", "composed")}
    publish(result, args.out)


def compare(before: list[Sample], after: list[Sample], old: str, new: str) -> dict[str, Any]:
    """Per held-out dataset: the gap ``new`` - ``old`` in the score (evidence and any evidence
    at 1,000 and 2,000 tokens) with its standard error, and both sides' figures by category,
    each side's recipe fitted without that dataset on its own candidates."""
    assert [(s.dataset, s.conversation, s.category) for s in before] == \
        [(s.dataset, s.conversation, s.category) for s in after]
    out: dict[str, Any] = {}
    figures = {}
    for name, data in ((old, before), (new, after)):
        p, shipped = held_out_p(data)
        figures[name] = per_question(data, p, shipped, "all", shipped, BUDGETS)
    at = [BUDGETS.index(1000), BUDGETS.index(2000)]
    for d in sorted({s.dataset for s in before}):
        mask = np.asarray([s.dataset == d for s in before])
        part = [s for s in before if s.dataset == d]
        gap, error = transfer.difference(part, question_score(figures[new][mask][:, at]),
                                         question_score(figures[old][mask][:, at]))
        out[d] = {"difference": round(100 * gap, 2), "standard_error": round(100 * error, 2),
                  old: rows_of(part, figures[old][mask]), new: rows_of(part, figures[new][mask])}
        print(f"{d}: {new} - {old} {100 * gap:+.2f} +- {100 * error:.2f}")
    return out


if __name__ == "__main__":
    main()
