"""Training MemDecider (EMA, seed 003) on the development splits, in the paper's two stages.

Labels: a LoCoMo turn is positive when a question cites it as evidence, a LongMemEval turn when
it is marked ``has_answer``. Every conversation is one *episode*; validation always holds whole
conversations out (fold k: the k-th LoCoMo conversation and every fifth LongMemEval question's
haystack), never turns of a conversation seen in training.

- Stage 1, supervised: binary cross-entropy (positives weighted by the class ratio), Adam.
- Stage 2, REINFORCE: the model is a Bernoulli policy over keep/drop per turn. Each episode is
  rolled out several times; a kept evidence turn earns +2, a kept other turn -0.5 (the paper's
  step rewards). The paper's terminal reward scores an LLM's answers, which we cannot run at
  this scale; in its place we use what those answers depend on: the share of the episode's
  questions whose every evidence turn was kept (the admitted memory can answer them).
  A turn's return is its step reward plus that terminal share; the baseline is the mean return
  of the same turn over the rollouts, the advantages are normalised, and an entropy bonus
  keeps the policy exploring.

The threshold tau is the one whose out-of-fold admissions earn the most step reward. The
metrics written beside the model are all out-of-fold: per fold and pooled, after each stage.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from graphmem.eval.datasets import locomo_questions, longmemeval_questions
from graphmem.ingest.inputs.loaders import parse_file
from graphmem.ingest.layers.episodes.memdecider import (
    HAND_FEATURES,
    PACKAGED_EMBEDDER,
    MemDecider,
    TurnText,
    hand_features,
)
from graphmem.providers.embedder import Embedder
from graphmem.text import turn_line

KEEP_REWARD, WASTE_REWARD = 2.0, -0.5
TAUS = tuple(round(0.05 * i, 2) for i in range(1, 20))


@dataclass
class Episode:
    """One conversation: its turns' features and labels, and each question's evidence rows."""

    name: str
    dataset: str
    vectors: np.ndarray
    hand: np.ndarray
    labels: np.ndarray
    questions: list[np.ndarray] = field(default_factory=list)


@dataclass(frozen=True)
class TrainConfig:
    hidden: int = 32
    epochs: int = 40  # stage 1
    learning_rate: float = 1e-3
    weight_decay: float = 1e-4
    dropout: float = 0.2
    rl_epochs: int = 15  # stage 2; 0 skips it
    rl_learning_rate: float = 2e-4
    rollouts: int = 8
    terminal_weight: float = 1.0  # alpha: the answerable share; the step rewards weigh 1 (beta)
    entropy: float = 0.01  # lambda
    folds: int = 5
    seed: int = 0


def episodes(locomo: Path | None, longmemeval: Path | None, embedder: Embedder,
             progress: Callable[[str], None] = lambda _: None) -> list[Episode]:
    """The labelled conversations of the given development files."""
    out: list[Episode] = []
    for path, dataset, read in ((locomo, "locomo", locomo_questions),
                                (longmemeval, "longmemeval", longmemeval_questions)):
        if path is None:
            continue
        questions: dict[str, list[set[str]]] = {}
        for q in read(path):
            questions.setdefault(q.conversation, []).append(set(q.evidence))
        conversations = parse_file(path, dataset).conversations  # type: ignore[arg-type]
        progress(f"{dataset}: {len(conversations)} conversations")
        for conv in conversations:
            turns = [t for s in conv.sessions for t in s.turns]
            if not turns:
                continue
            row = {t.source_id: i for i, t in enumerate(turns)}
            asked = [np.asarray(sorted(row[i] for i in ev if i in row)) for ev in
                     questions.get(conv.key, [])]
            positive = {i for ev in asked for i in ev}
            out.append(Episode(
                conv.key, dataset,
                embedder.embed([turn_line(t.speaker, t.text, t.image_caption) for t in turns]),
                hand_features([TurnText(t.text, t.image_url is not None or
                                        t.image_caption is not None) for t in turns]),
                np.asarray([float(i in positive) for i in range(len(turns))], dtype=np.float32),
                [a for a in asked if len(a)]))
    return out


def fold_of(episodes_: Sequence[Episode], folds: int) -> list[int]:
    """Fold of each episode: round-robin within each dataset, so every fold holds out some
    conversations of every dataset."""
    seen: dict[str, int] = {}
    out = []
    for ep in episodes_:
        out.append(seen.get(ep.dataset, 0) % folds)
        seen[ep.dataset] = seen.get(ep.dataset, 0) + 1
    return out


def _standardise(train: Sequence[Episode]) -> tuple[np.ndarray, np.ndarray]:
    hand = np.vstack([e.hand for e in train])
    scale = hand.std(axis=0)
    return hand.mean(axis=0).astype(np.float32), np.where(scale > 1e-6, scale, 1.0).astype(
        np.float32)


def fit(train: Sequence[Episode], config: TrainConfig, tau: float = 0.5,
        log: Callable[[str], None] = lambda _: None) -> tuple[MemDecider, MemDecider]:
    """The models after stage 1 and after stage 2 (the same when ``rl_epochs`` is 0)."""
    import torch

    torch.manual_seed(config.seed)
    mean, scale = _standardise(train)
    dims = train[0].vectors.shape[1] + len(HAND_FEATURES)
    net = torch.nn.Sequential(torch.nn.Linear(dims, config.hidden), torch.nn.ReLU(),
                              torch.nn.Dropout(config.dropout), torch.nn.Linear(config.hidden, 1))
    inputs = [torch.from_numpy(np.hstack([e.vectors, (e.hand - mean) / scale]).astype(
        np.float32)) for e in train]
    x = torch.cat(inputs)
    y = torch.from_numpy(np.concatenate([e.labels for e in train]))
    ratio = float((len(y) - y.sum()) / max(1.0, float(y.sum())))
    loss_fn = torch.nn.BCEWithLogitsLoss(pos_weight=torch.tensor(ratio))
    opt = torch.optim.Adam(net.parameters(), lr=config.learning_rate,
                           weight_decay=config.weight_decay)
    gen = torch.Generator().manual_seed(config.seed)
    for epoch in range(config.epochs):
        net.train()
        order = torch.randperm(len(y), generator=gen)
        for start in range(0, len(y), 256):
            batch = order[start : start + 256]
            opt.zero_grad()
            loss = loss_fn(net(x[batch]).squeeze(1), y[batch])
            loss.backward()
            opt.step()
        if epoch == config.epochs - 1:
            log(f"stage 1: {config.epochs} epochs, last loss {float(loss.detach()):.4f}")
    supervised = _export(net, mean, scale, tau)
    if config.rl_epochs:
        _reinforce(net, inputs, train, config, gen, log)
    return supervised, _export(net, mean, scale, tau)


def _reinforce(net: Any, inputs: list[Any], train: Sequence[Episode], config: TrainConfig,
               gen: Any, log: Callable[[str], None]) -> None:
    import torch

    opt = torch.optim.Adam(net.parameters(), lr=config.rl_learning_rate)
    net.eval()  # no dropout: the policy that is sampled is the one that is scored
    for epoch in range(config.rl_epochs):
        total = 0.0
        for i in torch.randperm(len(train), generator=gen).tolist():
            ep, x = train[i], inputs[i]
            p = torch.sigmoid(net(x).squeeze(1))
            actions = torch.bernoulli(p.detach().expand(config.rollouts, -1), generator=gen)
            labels = torch.from_numpy(ep.labels)
            step = actions * torch.where(labels > 0, KEEP_REWARD, WASTE_REWARD)
            answerable = torch.stack([
                torch.stack([a[q].min() for q in (torch.from_numpy(q) for q in ep.questions)])
                .mean() if ep.questions else torch.tensor(0.0) for a in actions])
            returns = step + config.terminal_weight * answerable[:, None]
            advantage = returns - returns.mean(dim=0, keepdim=True)
            advantage = advantage / (advantage.std() + 1e-6)
            log_p = actions * torch.log(p + 1e-7) + (1 - actions) * torch.log(1 - p + 1e-7)
            entropy = -(p * torch.log(p + 1e-7) + (1 - p) * torch.log(1 - p + 1e-7))
            loss = -(advantage * log_p).mean() - config.entropy * entropy.mean()
            opt.zero_grad()
            loss.backward()  # type: ignore[no-untyped-call]
            opt.step()
            total += float(returns.mean())
        if epoch == config.rl_epochs - 1:
            log(f"stage 2: {config.rl_epochs} epochs, mean return per turn "
                f"{total / len(train):.3f}")


def _export(net: Any, mean: np.ndarray, scale: np.ndarray, tau: float) -> MemDecider:
    first, last = net[0], net[3]
    return MemDecider(mean, scale, first.weight.detach().numpy().T.copy(),
                      first.bias.detach().numpy().copy(),
                      last.weight.detach().numpy()[0].copy(), float(last.bias.detach()[0]), tau)


def admission(scores: np.ndarray, labels: np.ndarray, tau: float) -> dict[str, float]:
    """What admitting the turns scored at least ``tau`` keeps."""
    kept = scores >= tau
    positives = max(1.0, float(labels.sum()))
    tp = float((kept & (labels > 0)).sum())
    return {"tau": tau, "admitted": round(float(kept.mean()), 4),
            "evidence_admitted": round(tp / positives, 4),
            "precision": round(tp / max(1, int(kept.sum())), 4),
            "step_reward_per_turn": round(float(
                (KEEP_REWARD * (kept & (labels > 0)) + WASTE_REWARD * (kept & (labels == 0)))
                .mean()), 4)}


def summary(scores: np.ndarray, labels: np.ndarray, tau: float) -> dict[str, Any]:
    from sklearn.metrics import roc_auc_score

    both = len(set(labels.tolist())) == 2
    return {"turns": len(labels), "evidence": int(labels.sum()),
            "roc_auc": round(float(roc_auc_score(labels, scores)), 4) if both else None,
            **admission(scores, labels, tau)}


def best_tau(scores: np.ndarray, labels: np.ndarray) -> float:
    """The threshold whose admissions earn the most step reward."""
    return max(TAUS, key=lambda t: admission(scores, labels, t)["step_reward_per_turn"])


def cross_validate(eps: Sequence[Episode], config: TrainConfig,
                   log: Callable[[str], None] = lambda _: None) -> dict[str, Any]:
    """Out-of-fold scores of both stages, fold by fold, and the threshold chosen on them."""
    folds = fold_of(eps, config.folds)
    oof: dict[str, list[np.ndarray]] = {"stage1": [np.zeros(0)] * len(eps),
                                        "stage2": [np.zeros(0)] * len(eps)}
    per_fold = []
    for k in range(config.folds):
        train = [e for e, f in zip(eps, folds, strict=True) if f != k]
        test = [i for i, f in enumerate(folds) if f == k]
        if not train or not test:
            continue
        start = time.perf_counter()
        models = fit(train, config, log=log)
        for stage, model in zip(("stage1", "stage2"), models, strict=True):
            for i in test:
                oof[stage][i] = model.scores(eps[i].vectors, eps[i].hand)
        labels = np.concatenate([eps[i].labels for i in test])
        held = [eps[i].name for i in test if eps[i].dataset == "locomo"]
        lme = sum(eps[i].dataset == "longmemeval" for i in test)
        stages = {stage: summary(np.concatenate([oof[stage][i] for i in test]), labels, 0.5)
                  for stage in oof}
        per_fold.append({"fold": k, "held_out": held + ([f"{lme} LongMemEval"] if lme else []),
                         "seconds": round(time.perf_counter() - start, 1), **stages})
        log(f"fold {k}: AUC stage 1 {stages['stage1']['roc_auc']}, "
            f"stage 2 {stages['stage2']['roc_auc']}")
    labels = np.concatenate([e.labels for e in eps])
    report: dict[str, Any] = {"folds": per_fold}
    for stage, parts in oof.items():
        scores = np.concatenate(parts)
        tau = best_tau(scores, labels)
        by_dataset = {}
        for dataset in sorted({e.dataset for e in eps}):
            rows = [i for i, e in enumerate(eps) if e.dataset == dataset]
            by_dataset[dataset] = summary(np.concatenate([parts[i] for i in rows]),
                                          np.concatenate([eps[i].labels for i in rows]), tau)
        report[stage] = {"pooled": summary(scores, labels, tau), "by_dataset": by_dataset,
                         "sweep": [admission(scores, labels, t) for t in TAUS]}
    return report


def train(eps: Sequence[Episode], config: TrainConfig, model_path: Path, metrics_path: Path,
          sources: Sequence[str], log: Callable[[str], None] = lambda _: None,
          embedder: str = PACKAGED_EMBEDDER) -> dict[str, Any]:
    """Cross-validate, then fit on every episode with the out-of-fold threshold of stage 2 and
    write the model and its metrics."""
    import json
    from dataclasses import asdict

    if not eps:
        raise ValueError("no labelled conversations to train on")
    report = cross_validate(eps, config, log)
    tau = float(report["stage2"]["pooled"]["tau"])
    _, model = fit(eps, config, tau=tau, log=log)
    model = replace(model, embedder=embedder)  # the vectors it reads: the layer checks them
    model.save(model_path)
    metrics = {"trained_on": list(sources), "embedder": embedder, "conversations": len(eps),
               "turns": int(sum(len(e.labels) for e in eps)),
               "evidence_turns": int(sum(e.labels.sum() for e in eps)),
               "tau": tau, "config": asdict(config), "features": ["embedding", *HAND_FEATURES],
               "validation": "out-of-fold: whole conversations held out", **report}
    metrics_path.write_text(json.dumps(metrics, indent=1) + "\n", encoding="utf-8")
    return metrics
