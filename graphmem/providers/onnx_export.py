"""Exporting a mean-pooled sentence-transformers model to one ONNX graph with PyTorch: the
transformer, mean pooling over the attention mask, the model's Dense layers if it has any
(EmbeddingGemma has two), and L2 normalisation. Done once per machine for a model graphmem
ships no graph for, when PyTorch (the ``train`` extra) is installed: by ``graphmem models
install``, on first use of a model folder, and by :mod:`graphmem.training.onnx_export` to
make the graph that ships."""

from __future__ import annotations

import inspect
import os
import warnings
from pathlib import Path
from typing import Any

from graphmem.providers.model_folder import dense_layers

INPUTS = ("input_ids", "attention_mask", "token_type_ids")
OPSET = 17


def export(path: Path, out: Path, fold_constants: bool = True) -> None:
    """Write the ONNX graph of the model at ``path`` to ``out`` (atomically). Its inputs are
    ``input_ids``, ``attention_mask`` and, for a model that reads them, ``token_type_ids``."""
    import torch
    from transformers import AutoModel

    model = AutoModel.from_pretrained(str(path), local_files_only=True).eval()
    typed = "token_type_ids" in inspect.signature(model.forward).parameters
    config = model.config
    # a model that reads a mask per kind of layer (Gemma 3: full and sliding-window attention,
    # both bidirectional in EmbeddingGemma) is given them made here: the library would build
    # them with torch.vmap, which the exporter cannot trace
    windowed = bool(getattr(config, "use_bidirectional_attention", False)
                    and getattr(config, "layer_types", None))
    dense = [torch.tensor(w) for w in dense_layers(path)]

    class Pooled(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.model = model
            self.dense = torch.nn.ParameterList(
                [torch.nn.Parameter(w, requires_grad=False) for w in dense])

        def forward(self, ids: Any, mask: Any, *types: Any) -> Any:
            kwargs: dict[str, Any] = {"input_ids": ids, "attention_mask": mask}
            if types:
                kwargs["token_type_ids"] = types[0]
            if windowed:
                kwargs["attention_mask"] = _layer_masks(torch, mask, config.sliding_window)
                kwargs["use_cache"] = False
            hidden = self.model(**kwargs).last_hidden_state
            weights = mask.unsqueeze(-1).to(hidden.dtype)
            vector = (hidden * weights).sum(1) / weights.sum(1).clamp(min=1e-9)
            for weight in self.dense:
                vector = vector @ weight.T
            return torch.nn.functional.normalize(vector, dim=-1)

    sample = torch.ones((2, 8), dtype=torch.long)
    names = list(INPUTS if typed else INPUTS[:2])
    args = (sample, sample, torch.zeros_like(sample))[:len(names)]
    axes = {name: {0: "batch", 1: "tokens"} for name in names}
    out.parent.mkdir(parents=True, exist_ok=True)
    partial = out.with_name(f"{out.name}.{os.getpid()}.partial")
    with torch.no_grad(), warnings.catch_warnings():
        # the tracer's notes (an index gather, shapes read as constants) do not apply to an
        # encoder run with a mask; the vectors are checked against PyTorch's in the tests
        warnings.simplefilter("ignore")
        torch.onnx.export(Pooled(), args, str(partial), input_names=names,
                          output_names=["vector"],
                          dynamic_axes={**axes, "vector": {0: "batch"}}, opset_version=OPSET,
                          dynamo=False, do_constant_folding=fold_constants)
    os.replace(partial, out)  # two processes exporting at once both leave a whole file


def _layer_masks(torch: Any, mask: Any, window: int) -> dict[str, Any]:
    """Gemma 3's two attention masks for a bidirectional encoder: every real token sees every
    real token (full attention), or those fewer than ``window`` positions away (sliding)."""
    n = mask.shape[1]
    position = torch.arange(n)
    near = (position[None, :] - position[:, None]).abs() < window
    keys = mask.bool()[:, None, None, :]
    return {"full_attention": keys.expand(-1, 1, n, n),
            "sliding_attention": keys & near[None, None]}
