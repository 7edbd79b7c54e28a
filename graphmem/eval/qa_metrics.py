"""Answer-quality metrics: token-set F1, LoCoMo's official F1, and BLEU-1. Pure functions."""

from __future__ import annotations

import math
import re
import string
from collections import Counter
from functools import cache

_SIMPLE_PUNCT = re.compile(r"[.,!?]")
_ARTICLES = re.compile(r"\b(a|an|the|and)\b")
_PUNCT = set(string.punctuation)


def simple_tokens(text: str) -> list[str]:
    """Lower case, ``.,!?`` to spaces, split on whitespace (the common LoCoMo evaluations)."""
    return _SIMPLE_PUNCT.sub(" ", str(text).lower()).split()


def token_set_f1(prediction: str, gold: str) -> float:
    pred, ref = set(simple_tokens(prediction)), set(simple_tokens(gold))
    common = len(pred & ref)
    if not pred or not ref or common == 0:
        return 0.0
    precision, recall = common / len(pred), common / len(ref)
    return 2 * precision * recall / (precision + recall)


@cache
def _stemmer() -> object:
    from nltk.stem import PorterStemmer  # the stemmer LoCoMo's own evaluation uses

    return PorterStemmer()


def locomo_normalize(text: str) -> str:
    """LoCoMo's normalisation: drop commas, lower case, drop punctuation and articles."""
    text = str(text).replace(",", "").lower()
    text = "".join(ch for ch in text if ch not in _PUNCT)
    return " ".join(_ARTICLES.sub(" ", text).split())


def _stemmed(text: str) -> list[str]:
    stem = _stemmer().stem  # type: ignore[attr-defined]
    return [stem(word) for word in locomo_normalize(text).split()]


def locomo_token_f1(prediction: str, gold: str) -> float:
    pred, ref = _stemmed(prediction), _stemmed(gold)
    same = sum((Counter(pred) & Counter(ref)).values())
    if same == 0:
        return 0.0
    precision, recall = same / len(pred), same / len(ref)
    return 2 * precision * recall / (precision + recall)


def locomo_f1(prediction: str, gold: str, category: str) -> float:
    """The official LoCoMo F1 for categories 1-4.

    Multi-hop answers are lists: each comma-separated gold part is matched with its best
    predicted part and the scores are averaged. Open-domain golds keep the part before ``;``.
    """
    if category == "multi-hop":
        parts = [p.strip() for p in str(prediction).split(",")]
        golds = [g.strip() for g in str(gold).split(",")]
        return sum(max(locomo_token_f1(p, g) for p in parts) for g in golds) / len(golds)
    if category == "open-domain":
        gold = str(gold).split(";")[0].strip()
    return locomo_token_f1(prediction, gold)


def bleu1(prediction: str, gold: str) -> float:
    """Clipped unigram precision times the brevity penalty (one reference)."""
    pred, ref = simple_tokens(prediction), simple_tokens(gold)
    if not pred or not ref:
        return 0.0
    clipped = sum((Counter(pred) & Counter(ref)).values())
    penalty = 1.0 if len(pred) > len(ref) else math.exp(1 - len(ref) / len(pred))
    return penalty * clipped / len(pred)
