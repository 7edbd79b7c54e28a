"""Who is who: the names speakers go by, learnt from the conversation itself, and used where
a question's persons are matched."""

from __future__ import annotations

from datetime import datetime

from graphmem.retrieve.fused.candidates import Signals
from graphmem.retrieve.fused.features import FEATURES, Asked, matrix
from graphmem.retrieve.fused.space_index import SpaceTurns, TurnRow
from graphmem.text import Cast, speaker_aliases

TWO = [("Katherine", "Morning! Guess what, I signed up for pottery."),
       ("Thomas", "Hey Kate! That's brilliant."),
       ("Katherine", "Have a great time, Tommy!"),
       ("Thomas", "Wow, Fantastic! I love fantastic news."),  # a word, not a name
       ("Katherine", "Hey Pepper is my new puppy"),  # no vocative: a name must stand alone
       ("Thomas", "Thanks, Thomas... I mean thanks, Kate.")]


def test_a_two_person_chat_names_each_speaker_by_what_the_other_calls_them() -> None:
    assert speaker_aliases(TWO) == {"Katherine": ["kate"], "Thomas": ["tommy"]}


def test_a_self_introduction_is_an_alias() -> None:
    said = [("user", "Hi! My name is Priya, by the way."), ("assistant", "Nice to meet you.")]
    assert speaker_aliases(said) == {"user": ["priya"]}


def test_in_a_group_the_addressee_is_the_last_other_speaker_and_must_be_heard_twice() -> None:
    said = [("Rachel Green", "I got the job!"), ("Monica Geller", "Congrats, Rach!"),
            ("Joey Tribbiani", "How you doin'?"), ("Rachel Green", "Great, thanks."),
            ("Phoebe Buffay", "Oh, Rach!"), ("Joey Tribbiani", "Hey Pheebs!")]
    assert speaker_aliases(said) == {"Rachel Green": ["rach"]}  # "Pheebs" heard once


def test_a_name_of_another_speakers_label_or_pointing_at_two_is_nobodys() -> None:
    said = [("Ann", "Hi Bob!"), ("Bob", "Hi Ann!"), ("Ann", "Bye, Bobby!"),
            ("Bob", "Thanks, Bobby!")]  # "Bobby" said to both: ambiguous
    assert speaker_aliases(said) == {}


def test_the_cast_matches_an_alias_before_any_fuzzy_name() -> None:
    cast = Cast(["Katherine", "Thomas"], aliases={"Katherine": ["kate"], "Thomas": ["tommy"]})
    assert cast.match("Kate") == ["katherine"] and cast.match("Tommy") == ["thomas"]
    assert cast.resolve("Kate") == "katherine"
    assert Cast(["Katherine", "Thomas"]).match("Tommy") == []  # no fuzzy match reaches it


def test_a_question_by_nickname_names_the_speaker_and_their_turns() -> None:
    rows = [TurnRow(f"t{i}", speaker, text, None, f"D1:{i}", i, None, "s1", 0,
                    datetime(2024, 3, 2), None) for i, (speaker, text) in enumerate(TWO)]
    table = SpaceTurns(rows)
    signals = Signals(ranks={}, sources=("bm25",))
    x = matrix(table, signals, Asked(("tommy",), (), False, False), list(range(len(rows))))
    named = x[:, FEATURES.index("speaker_named")]
    assert [rows[i].speaker for i in range(len(rows)) if named[i]] == ["Thomas"] * 3
    mentioned = x[:, FEATURES.index("person_in_text")]
    assert mentioned[5] == 1.0  # "Thanks, Thomas": the label's word counts as a mention
    assert mentioned[0] == 0.0
