"""Aliases on the real Neo4j: the scenes layer writes the names a conversation calls its
speakers by onto their Speaker and Character nodes, the Browser's speakers query shows them,
forgetting the turns that taught a name forgets the name, and `cast` reads a question's
nickname as the speaker it names."""

from __future__ import annotations

from graphmem import cypher
from graphmem.client import Memory
from graphmem.retrieve import cues
from graphmem.text import Cast

from helpers import DATA, query_rows

CHAT = DATA / "alias_conversation.json"


def with_scenes(memory: Memory) -> Memory:
    return Memory(memory.settings.model_copy(update={"ingest_layers": "edus,scenes"}),
                  store=memory.store, embedder=memory.embedder)


def aliases(memory: Memory, space: str) -> dict[str, list[str]]:
    rows = query_rows(memory.store, """
        MATCH (ch:Character {space: $space})-[:SPEAKS_AS]->(s:Speaker)
        RETURN s.name AS name, s.aliases AS speaker, ch.aliases AS character""", space=space)
    assert all(r["speaker"] == r["character"] for r in rows)
    return {r["name"]: r["speaker"] for r in rows}


def test_aliases_are_stored_shown_used_and_forgotten(memory: Memory, space: str) -> None:
    writer = with_scenes(memory)
    writer.ingest(CHAT, space=space)
    assert aliases(memory, space) == {"Katherine": ["kate"], "Thomas": ["tommy"]}
    with memory.store.driver.session(database=memory.store.database) as session:
        shown = {r["s"]["name"]: r["aliases"] for r in session.run(
            cypher.load("browser/11_speakers"), space=space)}  # type: ignore[arg-type]
    assert shown == {"Katherine": ["kate"], "Thomas": ["tommy"]}
    rows = memory.store.read("retrieve/space_characters", space=space)
    cast = Cast((r["name"] for r in rows), aliases={r["name"]: r["aliases"] for r in rows})
    assert cues.question_cues("What class did Kate sign up for?", cast).persons == (
        "katherine",)
    hits = memory.search("Where did Tommy travel to?", space=space, strategy="cast-scenes",
                         budget=300).hits
    assert any("Oslo" in h.text for h in hits)
    # "Have a great time, Tommy!" is the only turn that calls Thomas so: forget it
    turn = next(m for m in memory.messages(space, "kate-tom").messages if "Tommy" in m.text)
    writer.forget(space, "kate-tom", turns=[turn.id])
    writer.flush()  # the scenes layer, derived again, says who is called what
    assert aliases(memory, space) == {"Katherine": ["kate"], "Thomas": []}
