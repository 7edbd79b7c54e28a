"""The recalled-context marker: what is a block, what is only text."""

from graphmem.markers import CLOSE, OPEN, mark, strip_marked, strip_text


def test_mark_wraps_and_empty_stays_empty() -> None:
    assert mark("  [1] Ana: fjords  ") == f"{OPEN}\n[1] Ana: fjords\n{CLOSE}"
    assert mark("   ") == ""


def test_a_message_of_only_context_is_emptied() -> None:
    done = strip_marked([mark("Ana likes fjords"), "hello"])
    assert done.texts == ["", "hello"]
    assert done.blocks == 1 and done.emptied == [0] and done.touched == [0]


def test_text_around_a_block_is_kept() -> None:
    text, n = strip_text(f"Before.\n{mark('old memory')}\nAfter, and a question?")
    assert (text, n) == ("Before.\nAfter, and a question?", 1)
    text, n = strip_text(f"a {mark('x')} b {mark('y')} c")
    assert (text, n) == ("a\nb\nc", 2)


def test_a_block_split_across_texts() -> None:
    done = strip_marked([f"my question {OPEN} recalled part one", "recalled part two",
                         f"part three {CLOSE} thanks", "next"])
    assert done.texts == ["my question", "", "thanks", "next"]
    assert done.blocks == 1 and done.emptied == [1] and done.touched == [0, 1, 2]


def test_mentions_of_the_marker_are_text() -> None:
    prose = ["What does the graphmem-context tag do?",
             f"I saw {OPEN} in a log once, with nothing after it",
             f"and a stray {CLOSE} too"]
    done = strip_marked(prose)
    # the opening tag of the second text has a closing tag after it (in the third): a block
    assert done.blocks == 1
    alone = [f"I saw {OPEN} in a log once", "What does graphmem-context mean?",
             f"only a closing {CLOSE} here"]
    done = strip_marked(alone[1:])
    assert done.texts == alone[1:] and done.blocks == 0 and not done.touched
    done = strip_marked(alone[:1])
    assert done.texts == alone[:1] and done.blocks == 0


def test_tags_match_ignoring_case_and_empty_input_stays() -> None:
    text, n = strip_text("keep <GraphMem-Context>gone</GRAPHMEM-CONTEXT>")
    assert (text, n) == ("keep", 1)
    done = strip_marked(["", "  "])
    assert done.texts == ["", "  "] and done.emptied == []
