"""A space's revision: every change of a space, through any route and from any process, is seen
by the next search of every client, even when the space keeps its numbers of turns and
sessions (a fixed word, a restore of an older backup, a delete and ingest of the same shape)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from graphmem.client import Memory
from graphmem.retrieve.base import space_state

CITY_QUESTION = "Which city did Ines and Tom move to?"


def chat(city: str) -> dict[str, Any]:
    """A small chat whose one fact is the city Ines and Tom moved to."""
    return {"format": "graphmem.chat/v1", "conversations": [{"id": "ines-ana", "sessions": [
        {"id": "s1", "started_at": "2024-05-02T18:00:00", "turns": [
            {"speaker": "Ines", "text": f"Big news, Ana: Tom and I moved to {city} last week."},
            {"speaker": "Ana", "text": "Wow! How is the new flat?"},
            {"speaker": "Ines", "text": "Small but bright, and the bakery downstairs is great."},
            {"speaker": "Ana", "text": "I want to visit in the summer."}]},
        {"id": "s2", "started_at": "2024-06-10T19:00:00", "turns": [
            {"speaker": "Ana", "text": "Did you find a running club yet?"},
            {"speaker": "Ines", "text": "Yes, they meet by the river on Thursdays."}]}]}]}


def write(path: Path, city: str) -> Path:
    path.write_text(json.dumps(chat(city)), encoding="utf-8")
    return path


def context_of(memory: Memory, space: str, question: str = CITY_QUESTION,
               strategy: str = "graphmem", budget: int = 60) -> str:
    return memory.search(question, space=space, strategy=strategy, budget=budget).context


def revision(memory: Memory, space: str) -> str | None:
    return space_state(memory.store, space).revision


def test_a_fixed_word_is_found_by_the_next_search(memory: Memory, space: str,
                                                  tmp_path: Path) -> None:
    memory.ingest(write(tmp_path / "chat.json", "Porto"), space=space)
    assert "Porto" in context_of(memory, space)
    before = space_state(memory.store, space, ("turns",))
    memory.ingest(write(tmp_path / "chat.json", "Lisbon"), space=space)  # same counts
    after = space_state(memory.store, space, ("turns",))
    assert (after.turns, after.sessions, after.missing) == (
        before.turns, before.sessions, before.missing)
    assert after.revision != before.revision
    for strategy in ("graphmem", "graphmem-statements", "turns", "emem-g-fill"):
        shown = context_of(memory, space, strategy=strategy, budget=200)
        assert "Lisbon" in shown and "Porto" not in shown, strategy
    # the word itself: BM25 of the client's table and the held vectors know the new text
    best = memory.search("Lisbon", space=space, strategy="graphmem", budget=200).hits
    assert any("Lisbon" in hit.text for hit in best)
    assert not any("Porto" in hit.text for hit in best)


def test_a_restored_older_backup_is_what_is_found(memory: Memory, space: str,
                                                  tmp_path: Path) -> None:
    memory.ingest(write(tmp_path / "chat.json", "Porto"), space=space)
    memory.export_space(space, tmp_path / "old.jsonl.gz")
    old = revision(memory, space)
    memory.ingest(write(tmp_path / "chat.json", "Lisbon"), space=space)
    assert "Lisbon" in context_of(memory, space)  # cached for the new revision
    reader = Memory(memory.settings, store=memory.store, embedder=memory.embedder)
    assert "Lisbon" in context_of(reader, space)  # another client holds it too
    memory.import_space(tmp_path / "old.jsonl.gz", replace=True)
    restored = revision(memory, space)
    assert restored not in (None, old)  # a restore is a change: never the file's revision
    for client in (memory, reader):
        shown = context_of(client, space)
        assert "Porto" in shown and "Lisbon" not in shown
    reader.live.close()


def test_every_route_that_changes_a_space_gives_a_new_revision(memory: Memory, space: str,
                                                               tmp_path: Path) -> None:
    seen: list[str | None] = [revision(memory, space)]
    assert seen == [None]  # no space yet

    def changed() -> None:
        now = revision(memory, space)
        assert now is not None and now not in seen
        seen.append(now)

    memory.ingest(write(tmp_path / "chat.json", "Porto"), space=space, layers="")
    changed()
    memory.ingest(write(tmp_path / "chat.json", "Porto"), space=space, layers="")
    changed()  # an ingest that finds nothing new still wrote (and took the lock)
    memory.add_layers(space, "edus")
    changed()
    memory.add_messages(space, "ines-ana", [{"speaker": "Ana", "text": "Say hi to Tom!"}],
                        layers="edus")
    changed()  # the live turn
    memory.flush()
    changed()  # its background derivation
    memory.export_space(space, tmp_path / "s.jsonl.gz")
    memory.import_space(tmp_path / "s.jsonl.gz", replace=True)
    changed()
    assert memory.delete_space(space)
    assert revision(memory, space) is None


def test_a_change_made_by_another_process_is_seen(memory: Memory, space: str, tmp_path: Path,
                                                  neo4j_server: object) -> None:
    """A long-running client (a server) keeps a space while the CLI, in its own process,
    deletes it and ingests a file of the same shape."""
    memory.ingest(write(tmp_path / "chat.json", "Porto"), space=space)
    assert "Porto" in context_of(memory, space)
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRAPHMEM_LLM")}
    cli = [str(Path(sys.executable).parent / "graphmem")]
    for args in (["delete", "--space", space, "--yes"],
                 ["ingest", str(write(tmp_path / "edited.json", "Lisbon")), "--space", space]):
        done = subprocess.run([*cli, *args], env=env, capture_output=True, text=True,
                              timeout=300, check=False)
        assert done.returncode == 0, done.stdout + done.stderr
    shown = context_of(memory, space)
    assert "Lisbon" in shown and "Porto" not in shown


def test_a_ppr_projection_is_made_again_after_a_change(memory: Memory, space: str,
                                                       tmp_path: Path) -> None:
    memory.ingest(write(tmp_path / "chat.json", "Porto"), space=space, layers="edus")
    first = memory.projections.graph_for(memory.store, space)
    assert first is not None and memory.projections.graph_for(memory.store, space) == first
    memory.ingest(write(tmp_path / "chat.json", "Lisbon"), space=space, layers="edus")
    second = memory.projections.graph_for(memory.store, space)
    assert second is not None and second != first
    shown = context_of(memory, space, strategy="emem-g-fill", budget=200)
    assert "Lisbon" in shown and "Porto" not in shown
    memory.projections.drop_space(memory.store, space)


def test_clients_keep_their_own_caches(memory: Memory, space: str, tmp_path: Path) -> None:
    memory.ingest(write(tmp_path / "chat.json", "Porto"), space=space)
    others = [Memory(memory.settings, store=memory.store, embedder=memory.embedder)
              for _ in range(2)]
    context_of(others[0], space)
    assert len(others[0].caches) >= 1 and len(others[1].caches) == 0
    for other in others:
        other.live.close()


def test_a_table_kept_across_appends_equals_one_read_whole(memory: Memory, space: str,
                                                           monkeypatch: Any) -> None:
    """Between two searches that only live adds separate, the client reads only the appended
    turns (``retrieve/appended_turns``); the table it keeps equals one read whole. Any other
    change (here a forget) starts a new epoch and the table is read whole again."""
    import numpy as np

    from graphmem.retrieve.fused import space_index
    from graphmem.retrieve.fused.space_vectors import read_space_vectors, space_vectors
    from graphmem.store import GraphStore

    manual = Memory(memory.settings.model_copy(update={"live_derive": "manual"}),
                    store=memory.store, embedder=memory.embedder)
    reads: list[str] = []
    real = GraphStore.read_plain

    def spy(self: GraphStore, name: str, **params: Any) -> list[dict[str, Any]]:
        reads.append(name)
        return real(self, name, **params)

    monkeypatch.setattr(GraphStore, "read_plain", spy)

    def table() -> space_index.SpaceTurns:
        manual.search("Where do they run?", space=space, budget=100)
        return space_index.space_turns(manual.store, space_state(manual.store, space),
                                       manual.caches)

    manual.add_messages(space, "c", [{"speaker": "Ines", "text": "We moved to Porto.",
                                      "id": "m0"}])
    table()
    space_vectors(manual.store, space_state(manual.store, space), ["vector"], manual.caches)
    for n in range(1, 4):  # three adds, one of them opening a second conversation
        reads.clear()
        manual.add_messages(space, "c" if n != 2 else "b", [
            {"speaker": "Ines", "text": f"Running club note {n}.", "id": f"m{n}"}])
        kept = table()
        held = space_vectors(manual.store, space_state(manual.store, space), ["vector"],
                             manual.caches)
        assert {"retrieve/appended_turns", "retrieve/appended_vectors"} <= set(reads)
        assert not {"retrieve/space_turns", "retrieve/space_vectors"} & set(reads)
        whole = space_index.read_space_turns(manual.store, space)
        assert kept.rows == whole.rows and kept.keys == whole.keys
        assert kept.bm25("running club").tolist() == whole.bm25("running club").tolist()
        again = read_space_vectors(manual.store, space, ["vector"])
        assert held is not None
        assert held.sources["vector"].ids == again.sources["vector"].ids
        assert np.allclose(held.sources["vector"].vectors, again.sources["vector"].vectors)
    assert "Running club note 3." in manual.search("running club note 3", space=space,
                                                   budget=200).context
    reads.clear()
    manual.forget(space, "c", turns=["m0"])
    after = table()
    assert "retrieve/space_turns" in reads  # a new epoch: read whole
    assert "We moved to Porto." not in [r.text for r in after.rows]
    assert after.rows == space_index.read_space_turns(manual.store, space).rows
