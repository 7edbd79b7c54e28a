"""Turns that say nothing a question could ask about: greetings, thanks, how-are-you,
goodbyes, laughter, one-word acknowledgements, emoji alone.

A rule, not a model: a turn says nothing when, after dropping emoji, punctuation and
laughter, at most ``MAX_WORDS`` words are left and every one of them is phatic (a word of
greeting, thanks or feeling that carries no fact) or a name the turn addresses. Words that
can answer a question ("yes", "no", "sure", "right", a day of the week) are not phatic: a
short reply to a question is often the evidence (see the ``neighbours`` features).
Such turns are cheap, so packing by probability per token would favour them; the ranker
reads this signal and packing counts every turn at least ``floor`` tokens.
"""

from __future__ import annotations

import re

MAX_WORDS = 8
_LAUGH = re.compile(r"\b(?:a*(?:ha|he|hi){2,}h?|l+o+l+z?|lmao+|rofl|xd+)\b", re.IGNORECASE)
_WORD = re.compile(r"[a-z]+(?:'[a-z]+)?")
# words of greeting, thanks, agreement, feeling and filler, and the little words that join
# them ("how are you doing?", "same to you", "good night!", "talk to you soon")
_PHATIC_WORDS = """
hi hey heya hello hiya yo howdy morning evening afternoon night goodnight good bye goodbye
later cya see ya soon take care welcome thanks thank thx ty cheers appreciate it much so
very a lot you too same to your yours how are is was it going been doing things life what's
whats up sup fine great good well ok okay k alright all cool nice awesome wow oh ah aw aww
hmm hm um uh mm omg gosh haha lol glad happy hear that that's thats sounds sound me i i'm im am
and for the day have had hope hoping talk chat catch again there dear buddy pal man dude
guys everyone sweet love miss hugs xoxo
"""
PHATIC = frozenset(_PHATIC_WORDS.split())


def words_of(text: str) -> list[str]:
    """The lower-case words of ``text`` once laughter is removed."""
    return _WORD.findall(_LAUGH.sub(" ", text.lower()))


def says_nothing(text: str, names: frozenset[str] = frozenset()) -> bool:
    """Whether ``text`` is small talk only (``names``: lower-case names it may address)."""
    words = words_of(text)
    if len(words) > MAX_WORDS:
        return False
    return all(w in PHATIC or w in names for w in words)
