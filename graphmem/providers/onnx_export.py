"""Exporting a mean-pooled sentence-transformers model to one ONNX graph (the transformer, mean
pooling over the attention mask, L2 normalisation) with PyTorch: done once per machine for a
model graphmem ships no graph for, when PyTorch (the ``train`` extra) is installed, and by
:mod:`graphmem.training.onnx_export` to make the graph that ships."""

from __future__ import annotations

import os
import warnings
from pathlib import Path
from typing import Any

INPUTS = ("input_ids", "attention_mask", "token_type_ids")
OPSET = 17


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
