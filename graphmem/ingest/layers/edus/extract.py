"""Event statements (EDUs) and their arguments, without an LLM.

Every sentence of a turn becomes a short statement that can be read on its own: first-person
words name the speaker, second-person words name the listener (in two-party sessions), and a
relative date ("yesterday", "last week", "two days ago") gets the date it meant, computed from
the session's date by dateparser. Each statement keeps its source turn. Its arguments are the
named entities and noun phrases of the sentence, normalised so that the same thing said twice
becomes one shared node. Long structured turns (an assistant's list of suggestions) become one
chunk, indexed by a short summary and rendered in full.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from typing import Any, Literal

from graphmem.models import ConversationRecord, SessionRecord, TurnRecord
from graphmem.prompts import edu_extraction, event_arguments
from graphmem.providers.llm import LLM
from graphmem.providers.nlp import parse
from graphmem.text import arguments_of, display_name, turn_line

FIRST_PERSON = {"i": "", "me": "", "myself": "", "my": "'s", "mine": "'s"}
SECOND_PERSON = {"you": "", "yourself": "", "your": "'s", "yours": "'s"}
BE_AFTER_I = {"am": "is", "'m": "is", "’m": "is", "'ve": "has", "’ve": "has", "have": "has"}
RELATIVE = re.compile(r"\b(yesterday|today|tonight|tomorrow|last|next|ago|this|recently|"
                      r"earlier|weekend|morning|evening)\b", re.IGNORECASE)
MIN_WORDS = 3
CHUNK_MIN_CHARS = 600


@dataclass(frozen=True)
class EDURecord:
    key: str  # stable inside its conversation: "<turn source id>~<n>"
    kind: Literal["edu", "chunk"]
    text: str  # what is embedded and searched
    rendered: str  # what goes into a context (a chunk renders the whole turn)
    speaker: str
    source_ids: tuple[str, ...]
    arguments: tuple[str, ...]


@lru_cache(maxsize=4096)
def resolve_relative(expression: str, base: datetime) -> str | None:
    """The date a relative expression meant, at the precision it was said with."""
    import dateparser

    when = dateparser.parse(expression, languages=["en"],  # guessing the language is slow
                            settings={"RELATIVE_BASE": base, "PREFER_DATES_FROM": "past"})
    if when is None:
        return None
    lowered = expression.lower()
    if "year" in lowered:
        return f"{when.year}"
    if "month" in lowered:
        return f"{when:%B %Y}"
    if "week" in lowered:
        return f"the week of {when.day} {when:%B %Y}"
    return f"{when.day} {when:%B %Y}"


def rewrite(sentence: Any, speaker: str, listener: str | None, day: datetime | None) -> str:
    """The sentence with persons named and relative dates resolved."""
    dates = {}
    if day is not None:
        for ent in sentence.ents:
            if ent.label_ in {"DATE", "TIME"} and RELATIVE.search(ent.text):
                resolved = resolve_relative(ent.text, day)
                if resolved:
                    dates[ent.end - 1] = resolved
    out: list[str] = []
    previous_first = False
    for token in sentence:
        lower = token.lower_
        text = token.text
        if lower in FIRST_PERSON:
            text, previous_first = speaker + FIRST_PERSON[lower], lower == "i"
        elif listener and lower in SECOND_PERSON:
            text, previous_first = listener + SECOND_PERSON[lower], False
        elif previous_first and lower in BE_AFTER_I:
            text, previous_first = BE_AFTER_I[lower], False
            out.append(" ")  # "I'm" was one word; "Ana is" is two
        else:
            previous_first = False
        out.append(text + token.whitespace_)
        if token.i in dates:
            out[-1] = f"{text} ({dates[token.i]}){token.whitespace_}"
    return re.sub(r"\s+", " ", "".join(out)).strip()


def looks_structured(text: str) -> bool:
    lines = [line for line in text.splitlines() if line.strip()]
    listed = sum(bool(re.match(r"\s*(\d+[.)]|[-*•]|#+)\s", line)) for line in lines)
    return len(text) >= CHUNK_MIN_CHARS and (listed >= 2 or len(lines) >= 4)


def _chunk(turn: TurnRecord, doc: Any, speaker: str, asked: str | None) -> EDURecord:
    first = next(iter(doc.sents)).text.strip()
    topics = list(arguments_of(doc[:]))[:8]
    summary = f"{speaker} answered"
    summary += f" the request \"{asked}\"" if asked else ""
    summary += f": {first}"
    if topics:
        summary += f" Covers: {', '.join(topics)}."
    return EDURecord(key=f"{turn.source_id}~chunk", kind="chunk", text=summary,
                     rendered=turn_line(speaker, turn.text, turn.image_caption), speaker=speaker,
                     source_ids=(turn.source_id,), arguments=tuple(topics))


def session_edus(session: SessionRecord, speakers: Sequence[str]) -> list[EDURecord]:
    """The EDUs of one session, in spoken order."""
    names = {s: display_name(s) for s in speakers}
    present = list(dict.fromkeys(t.speaker for t in session.turns))
    texts = [turn.text for turn in session.turns]
    edus: list[EDURecord] = []
    last_request: str | None = None
    for turn, doc in zip(session.turns, parse(texts), strict=True):
        speaker = names.get(turn.speaker, turn.speaker)
        others = [p for p in present if p != turn.speaker]
        listener = names.get(others[0], others[0]) if len(others) == 1 else None
        if looks_structured(turn.text) and turn.speaker != (present[0] if present else None):
            edus.append(_chunk(turn, doc, speaker, last_request))
            continue
        n = 0
        for sentence in doc.sents:
            if sum(1 for t in sentence if t.is_alpha) < MIN_WORDS:
                continue
            text = rewrite(sentence, speaker, listener, session.started_at)
            edus.append(EDURecord(key=f"{turn.source_id}~{n}", kind="edu", text=text,
                                  rendered=text, speaker=speaker, source_ids=(turn.source_id,),
                                  arguments=arguments_of(sentence)))
            n += 1
        if turn.image_caption:
            text = f"{speaker} shared a picture: {turn.image_caption}."
            caption_doc = parse([turn.image_caption])[0]
            edus.append(EDURecord(key=f"{turn.source_id}~image", kind="edu", text=text,
                                  rendered=text, speaker=speaker, source_ids=(turn.source_id,),
                                  arguments=arguments_of(caption_doc[:])))
        if n == 0 and not turn.image_caption and turn.text.strip():
            # short replies still carry meaning in context ("Yes, in May!"): keep them whole
            text = f"{speaker}: {turn.text.strip()}"
            edus.append(EDURecord(key=f"{turn.source_id}~0", kind="edu", text=text,
                                  rendered=text, speaker=speaker, source_ids=(turn.source_id,),
                                  arguments=()))
        if len(turn.text) < 400:
            last_request = turn.text.strip().split("\n")[0][:160]
    return edus


def _llm_records(session: SessionRecord, reply: edu_extraction.EDUExtraction,
                 llm: LLM | None, fallbacks: list[str] | None) -> list[EDURecord]:
    """The LLM's statements of one session as records, with the LLM's arguments (one more
    call; the parser's where that reply is unusable). A statement citing a turn that does
    not exist makes the whole reply unusable (``ValueError``)."""
    turns = session.turns
    edus: list[EDURecord] = []
    for n, item in enumerate(reply.edus):
        if any(not 0 <= i < len(turns) for i in item.source_turns):
            raise ValueError(f"statement {n} cites a turn that does not exist")
        sources = [turns[i] for i in sorted(set(item.source_turns))]
        speaker = display_name(sources[0].speaker)
        rendered = item.text
        if item.kind == "chunk":
            rendered = "\n".join(turn_line(display_name(t.speaker), t.text, t.image_caption)
                                 for t in sources)
        edus.append(EDURecord(key=f"{sources[0].source_id}~L{n}", kind=item.kind,
                              text=item.text, rendered=rendered, speaker=speaker,
                              source_ids=tuple(t.source_id for t in sources), arguments=()))

    def by_statement(found: event_arguments.ArgumentExtraction) -> dict[int, tuple[str, ...]]:
        return {s.index: tuple(dict.fromkeys(a.argument.strip().lower() for a in s.arguments
                                             if a.argument.strip()))
                for s in found.statements}

    def none_chosen() -> dict[int, tuple[str, ...]]:
        return {}  # every statement gets the parser's arguments

    chosen = event_arguments.STEP.run(
        llm, lambda: event_arguments.messages([e.text for e in edus]), accept=by_statement,
        fallback=none_chosen, notes=fallbacks, where=f"arguments of session {session.key}")
    return [EDURecord(e.key, e.kind, e.text, e.rendered, e.speaker, e.source_ids,
                      chosen[i] if i in chosen else arguments_of(parse([e.text])[0][:]))
            for i, e in enumerate(edus)]


def _statements(conversation: ConversationRecord, session: SessionRecord, llm: LLM | None,
                fallbacks: list[str] | None) -> list[EDURecord]:
    speakers = conversation.speakers
    return edu_extraction.STEP.run(
        llm, lambda: edu_extraction.messages(edu_extraction.render_session(
            session.started_at, [display_name(s) for s in speakers],
            [(display_name(t.speaker), t.text) for t in session.turns])),
        accept=lambda reply: _llm_records(session, reply, llm, fallbacks),
        fallback=lambda: session_edus(session, speakers),
        notes=fallbacks, where=f"{conversation.key}/{session.key}")


def conversation_edus(conversation: ConversationRecord, llm: LLM | None = None,
                      fallbacks: list[str] | None = None
                      ) -> Iterable[tuple[SessionRecord, list[EDURecord]]]:
    """EDUs of every session: by the LLM when one is given (one call per session), else, or
    when its reply for a session is unusable (recorded in ``fallbacks``), by the rules."""
    for session in conversation.sessions:
        yield session, _statements(conversation, session, llm, fallbacks)
