"""Layers as plug-ins against the real Neo4j: adding a layer to a stored space, hand-offs read
back from the graph, strategies that refuse a space lacking their layer, and a layer's LLM
path and fallbacks driven by the in-process scripted model."""

from __future__ import annotations

from typing import Any

import pytest

from graphmem.client import Memory
from graphmem.errors import ConfigurationError, InputError, MissingLayerError
from graphmem.ingest.layer import Job, LayerContext
from graphmem.ingest.layers import LAYERS
from graphmem.ingest.stored import stored_conversations
from graphmem.ingest.writer import GraphWriter
from graphmem.testing import ScriptedLLM

from helpers import SAMPLE


def snapshot(memory: Memory, space: str) -> list[dict[str, Any]]:
    return memory.store.read("admin/space_snapshot", space=space)


def test_a_strategy_names_the_layer_a_space_lacks(memory: Memory, space: str) -> None:
    report = memory.ingest(SAMPLE, space=space, layers="")
    assert set(report.layers) == {"turns"}
    assert memory.search("greyhound", space=space, strategy="turns").hits
    with pytest.raises(MissingLayerError,
                       match=rf"'edus' layer, which 3 of the 3 sessions of space '{space}' lack;"
                             rf" add it with: graphmem layers add edus --space {space}"):
        memory.search("greyhound", space=space, strategy="emem-g")
    with pytest.raises(MissingLayerError, match="graphmem layers add events"):
        memory.search("greyhound", space=space, strategy="esmem")


def test_a_layer_still_being_derived_is_not_called_missing(memory: Memory, space: str) -> None:
    """After a forget a layer is pending, not missing: the error says to wait or refresh, not
    to add a layer the space already has."""
    manual = Memory(memory.settings.model_copy(update={"live_derive": "manual"}),
                    store=memory.store, embedder=memory.embedder)
    manual.ingest(SAMPLE, space=space)
    [conversation] = manual.conversations(space)
    first = manual.messages(space, conversation.conversation, limit=1).messages[0]
    manual.forget(space, conversation.conversation, turns=[first.id])
    with pytest.raises(MissingLayerError, match=rf"'edus' layer, which is still being derived "
                       rf"for 1 conversation\(s\) of space '{space}'.*graphmem refresh "
                       rf"--space {space}"):
        manual.search("greyhound", space=space, strategy="emem-g")
    manual.refresh(space)
    assert manual.search("greyhound", space=space, strategy="emem-g").hits
    manual.live.close()


def test_adding_layers_later_writes_what_one_ingest_writes(memory: Memory, space: str) -> None:
    memory.ingest(SAMPLE, space=space, layers="")
    report = memory.add_layers(space, "episodes,scenes,segments,events,edus")
    assert list(report.layers) == ["edus", "events", "segments", "scenes", "episodes"]
    assert report.count("edus") > 17 and report.count("events") >= 3
    assert report.count("retrieval units") == 17 and report.count("scenes") >= 2
    added = snapshot(memory, space)
    again = memory.ingest(SAMPLE, space=space)  # every default layer, from the file
    assert snapshot(memory, space) == added
    assert all(tally.embedded == 0 for tally in again.layers.values())
    assert memory.search("greyhound", space=space, strategy="esmem").hits
    # asking again recomputes only what was asked for, and changes nothing
    assert list(memory.add_layers(space, "events").layers) == ["events"]
    assert snapshot(memory, space) == added


def test_bad_layer_requests_are_clear_errors(memory: Memory, space: str) -> None:
    with pytest.raises(ConfigurationError, match=r"unknown layers \['scenery'\]; known: turns"):
        memory.ingest(SAMPLE, space=space, layers="edus,scenery")
    with pytest.raises(InputError, match="holds no conversations"):
        memory.add_layers(space, "edus")
    assert snapshot(memory, space) == []


@pytest.mark.parametrize("name", ["turns", "edus", "events"])
def test_hand_offs_read_back_from_the_graph_equal_the_computed_ones(
        memory: Memory, space: str, name: str) -> None:
    memory.ingest(SAMPLE, space=space)
    [conversation] = stored_conversations(memory.store, space)
    context = LayerContext(memory.store, memory.embedder)
    layer = LAYERS[name](context)
    loads: list[str] = []

    def load(needed: str, job: Job) -> Any:
        loads.append(needed)
        return LAYERS[needed](context).load(job)

    job = Job(space, conversation, load)
    computed = layer.handoff(layer.prepare(job))
    assert computed == layer.load(Job(space, conversation, load))
    assert computed is not None and loads == list(layer.needs)


def test_a_layers_llm_path_and_fallbacks_without_a_server(memory: Memory, space: str) -> None:
    def cites_a_missing_turn(messages: list[dict[str, str]]) -> dict[str, Any]:
        return {"edus": [{"text": "Someone did something.", "source_turns": [42]}]}

    llm = ScriptedLLM({
        "edu_extraction": [
            {"edus": [{"text": "Maya joined a pottery class in March 2024.",
                       "source_turns": [0, 1]}]},
            cites_a_missing_turn, "not JSON"],
        "event_arguments": [{"statements": [{"index": 0, "event_type": "enrolment",
                                             "arguments": [{"role": "agent",
                                                            "argument": "Maya"}]}]}],
        # turn topics, intents and boundary descriptions get no reply: the rules do them
    })
    writer = GraphWriter(LayerContext(memory.store, memory.embedder, llm), ["turns", "edus",
                                                                          "events"])
    report = writer.write(space, stored_or_parsed(memory))
    usage = llm.usage()
    assert len(report.layers["edus"].fallbacks) == 2 == usage["edu_extraction"].fallbacks
    assert [c.task for c in llm.calls[:2]] == ["edu_extraction", "event_arguments"]
    event_tasks = ("turn_topic", "intent", "boundary_description")
    assert len(report.layers["events"].fallbacks) == sum(
        usage[t].fallbacks for t in event_tasks if t in usage)
    assert usage["turn_topic"].fallbacks == 17  # one per turn
    texts = {r["text"] for r in memory.store.read("ingest/edus/conversation_edus", space=space,
                                                  conversation_id=f"{space}/maya-jonas")}
    assert "Maya joined a pottery class in March 2024." in texts  # session 1: the LLM's
    assert "Someone did something." not in texts  # session 2: the rules'


def stored_or_parsed(memory: Memory) -> list[Any]:
    from graphmem.ingest.inputs.loaders import parse_file

    return list(parse_file(SAMPLE, "json", max_turn_chars=memory.settings.max_turn_chars)
                .conversations)


def test_layers_reading_turn_vectors_embed_a_turn_whose_vector_is_gone(
        memory: Memory, space: str) -> None:
    """Events, scenes and episodes read the turns' stored vectors; a turn that has lost its
    vector is embedded as the turns layer embeds it, so the layers come out as for a space
    whose vectors are all there, and nothing is written back to the turn."""
    intact = f"{space}-intact"
    try:
        for name in (space, intact):
            memory.ingest(SAMPLE, space=name, layers="")
        records, _, _ = memory.store.driver.execute_query(
            "MATCH (t:Turn {space: $space}) WITH t ORDER BY t.id LIMIT 2 "
            "REMOVE t.embedding RETURN t.id AS id", space=space,
            database_=memory.store.database)
        assert len(records) == 2
        kinds = ("events", "boundaries", "scenes", "episodic units")
        counts = {name: memory.add_layers(name, "events,scenes,episodes")
                  for name in (space, intact)}
        assert [counts[space].count(k) for k in kinds] == \
            [counts[intact].count(k) for k in kinds]
        assert counts[space].count("events") >= 3 and counts[space].count("scenes") >= 2
        missing, _, _ = memory.store.driver.execute_query(
            "MATCH (t:Turn {space: $space}) WHERE t.embedding IS NULL RETURN count(t) AS n",
            space=space, database_=memory.store.database)
        assert missing[0]["n"] == 2
        assert memory.search("greyhound", space=space, strategy="esmem").hits
    finally:
        memory.delete_space(intact)
