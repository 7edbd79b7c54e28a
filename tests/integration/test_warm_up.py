"""A new process loads what a first search needs side by side: ``Memory.warm_up`` runs its
steps on threads, and a first search starts spaCy on a thread of its own before it reads the
space (how long either takes is `benchmarks/cold_start.py`'s to say, not a test's)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

from graphmem.client import Memory

# run in a new interpreter: this test process has long had spaCy loaded
PROBE = textwrap.dedent("""
    import json, sys, threading
    from graphmem.providers import nlp
    from graphmem.client import Memory

    with Memory() as memory:
        if sys.argv[1] == "warm":
            memory.warm_up()
            state = {"vectors_checked": memory._vectors_checked}
        else:
            result = memory.search("When did Maya move to Lisbon?", space=sys.argv[2])
            state = {"hits": [h.text for h in result.hits]}
        state["spacy"] = nlp._nlp is not None
        state["preloading"] = nlp._preloading is not None
        state["threads"] = sorted(t.name for t in threading.enumerate()
                                  if t.name.startswith("graphmem-warm"))
    print(json.dumps(state))
""")


def probe(*args: str) -> dict[str, object]:
    done = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True,
                          text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def test_warm_up_loads_every_model_and_leaves_no_thread_behind(neo4j_server: object) -> None:
    state = probe("warm")
    assert state == {"vectors_checked": True, "spacy": True, "preloading": False,
                     "threads": []}


def test_a_first_search_starts_spacy_before_it_reads_the_space(memory: Memory,
                                                               space: str) -> None:
    memory.add_messages(space, "c1", [{"speaker": "Maya", "text": "I moved to Lisbon in May."},
                                      {"speaker": "Ben", "text": "How is the new flat?"}])
    memory.flush()
    state = probe("search", space)
    assert state["preloading"] is True and state["spacy"] is True
    hits = state["hits"]
    assert isinstance(hits, list) and any("Lisbon" in str(h) for h in hits), state
