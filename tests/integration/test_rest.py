"""The REST server as a user runs it (`graphmem serve` in its own process), through an HTTP
client: tokens map to spaces, another tenant's space is refused, errors are JSON with the
command line's messages, large bodies are refused."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import httpx
import pytest

from graphmem.client import Memory
from graphmem.errors import InputError
from graphmem.markers import mark
from graphmem.serve.access import caller_id

from helpers import SAMPLE, start_rest

ALICE = "alice-token-0123456789"
BOB = "bob-token-0123456789ab"
SCRAPER = "prometheus-token-0123456789"
READER = "reader-token-0123456789a"  # may read Alice's space, not change it


@pytest.fixture()
def server(space: str, memory: Memory) -> Iterator[tuple[str, str, str]]:
    other = f"{space}-bob"
    tokens = {ALICE: [space], BOB: [other], READER: {"spaces": [space], "read_only": True}}
    env = {**os.environ, "GRAPHMEM_REST_TOKENS": json.dumps(tokens),
           "GRAPHMEM_REST_MAX_REQUEST_MB": "0.01", "GRAPHMEM_METRICS_TOKEN": SCRAPER}
    process, url = start_rest(env)
    try:
        yield url, space, other
    finally:
        process.terminate()
        process.wait(timeout=30)
        memory.delete_space(other)


def test_rest_round_trip_and_tenants(server: tuple[str, str, str], memory: Memory) -> None:
    url, space, other = server
    alice = httpx.Client(base_url=url, headers={"Authorization": f"Bearer {ALICE}"},
                         timeout=60)
    bob = httpx.Client(base_url=url, headers={"Authorization": f"Bearer {BOB}"}, timeout=60)
    memory.ingest(SAMPLE, space=space)

    added = alice.post(f"/v1/spaces/{space}/conversations/chat/messages", json={"messages": [
        {"speaker": "Maya", "text": "The kiln firing went well, all four mugs survived.",
         "id": "k1", "at": "2024-04-02T19:00:00"}]})
    assert added.status_code == 200, added.text
    assert added.json()["added"] == ["k1"]
    found = alice.post(f"/v1/spaces/{space}/search", json={"question": "What did Maya adopt?",
                                                           "budget": 300})
    assert found.status_code == 200 and "Pepper" in found.json()["context"]
    assert {"candidates", "ranking", "packing"} <= set(found.json()["timings_ms"])
    assert httpx.get(f"{url}/metrics").status_code == 401  # GRAPHMEM_METRICS_TOKEN is set
    assert httpx.get(f"{url}/metrics", headers={"Authorization": f"Bearer {ALICE}"}
                     ).status_code == 401  # a tenant's token is not the scraper's
    for number in range(12):  # methods a client invents count as one value, "other"
        httpx.request(f"BREW{number}", f"{url}/v1/health")
    metrics = httpx.get(f"{url}/metrics", headers={"Authorization": f"Bearer {SCRAPER}"}).text
    assert 'method="other"' in metrics and "BREW" not in metrics
    assert 'graphmem_searches_total{strategy="graphmem"} 1.0' in metrics
    assert "graphmem_messages_added_total 1.0" in metrics
    assert ('graphmem_requests_total{method="POST",route="/v1/spaces/{space}/search",'
            'status="200"} 1.0') in metrics
    assert "graphmem_derivation_backlog" in metrics and space not in metrics
    assert alice.get("/v1/spaces").json() == [{"space": space, "conversations": 2,
                                               "turns": 18, "writes": True}]
    # since in UTC, whatever zone it is written in (k1's session began 2024-04-02 19:00 UTC)
    for since, count in (("2024-04-02T18:00:00", 1), ("2024-04-02T18:00:00Z", 1),
                         ("2024-04-02T21:00:00+02:00", 1), ("2024-04-02T20:00:00Z", 0),
                         ("2024-04-03T04:00:00+14:00", 1), ("2000-01-01T00:00:00Z", 1)):
        page = alice.get(f"/v1/spaces/{space}/conversations/chat/messages",
                         params={"since": since})
        assert len(page.json()["messages"]) == count, (since, page.text)

    # Bob's token reaches Bob's space only: Alice's is refused, on every route
    for method, path, body in [
            ("POST", f"/v1/spaces/{space}/search", {"question": "What did Maya adopt?"}),
            ("POST", f"/v1/spaces/{space}/conversations/c/messages",
             {"messages": [{"speaker": "Bob", "text": "hi"}]}),
            ("DELETE", f"/v1/spaces/{space}", None)]:
        refused = bob.request(method, path, json=body)
        assert refused.status_code == 403, (path, refused.text)
        assert refused.json()["error"]["message"] == (
            f"space {space!r} is not served here; allowed: {other}")
    assert bob.get("/v1/spaces").json() == []
    assert memory.has_space(space)

    # no token, or a wrong one
    anonymous = httpx.post(f"{url}/v1/spaces/{space}/search", json={"question": "x"})
    assert anonymous.status_code == 401 and anonymous.headers["www-authenticate"] == "Bearer"
    forged = httpx.post(f"{url}/v1/spaces/{space}/search", json={"question": "x"},
                        headers={"Authorization": "Bearer nope"})
    assert forged.status_code == 401

    # graphmem's own messages, as the command line prints them
    empty = alice.post(f"/v1/spaces/{space}/search", json={"question": "  "})
    assert empty.status_code == 400
    assert empty.json()["error"] == {"type": "input", "message": "field question: the "
                                     "question is empty", "field": "question"}
    bad = alice.post(f"/v1/spaces/{space}/conversations/chat/messages",
                     json={"messages": [{"speaker": "Maya", "text": ""}]})
    assert bad.status_code == 400 and bad.json()["error"]["field"] == "messages[0].text"
    # the Python API's message shapes, one schema everywhere: OpenAI-style role / content
    openai = alice.post(f"/v1/spaces/{space}/conversations/chat/messages", json={"messages": [
        {"role": "user", "content": "I ordered a blue kayak.", "id": "o1"}]})
    assert openai.status_code == 200 and openai.json()["added"] == ["o1"], openai.text
    both = alice.post(f"/v1/spaces/{space}/conversations/chat/messages", json={"messages": [
        {"role": "user", "speaker": "Maya", "content": "x"}]})
    assert both.status_code == 400 and "give one" in both.json()["error"]["message"]
    shape = alice.post(f"/v1/spaces/{space}/search", json={"budget": 10})
    assert shape.status_code == 422 and shape.json()["error"]["field"] == "body.question"
    unknown = alice.post(f"/v1/spaces/{space}/search", json={"question": "x",
                                                             "strategy": "nope"})
    assert unknown.status_code == 400 and "nope" in unknown.json()["error"]["message"]
    big = alice.post(f"/v1/spaces/{space}/conversations/chat/messages", json={"messages": [
        {"speaker": "Maya", "text": "x" * 20_000}]})
    assert big.status_code == 413 and big.json()["error"]["type"] == "too_large"

    assert alice.get("/openapi.json").json()["info"]["title"] == "graphmem"
    deleted = alice.delete(f"/v1/spaces/{space}")
    assert deleted.json() == {"deleted": True} and not memory.has_space(space)


def test_rest_lists_inspects_and_forgets(server: tuple[str, str, str], memory: Memory) -> None:
    url, space, _ = server
    alice = httpx.Client(base_url=url, headers={"Authorization": f"Bearer {ALICE}"},
                         timeout=120)
    bob = httpx.Client(base_url=url, headers={"Authorization": f"Bearer {BOB}"}, timeout=60)
    memory.ingest(SAMPLE, space=space, layers="edus")
    [listed] = alice.get(f"/v1/spaces/{space}/conversations").json()
    assert (listed["conversation"], listed["sessions"], listed["messages"]) == (
        "maya-jonas", 3, 17)
    page = alice.get(f"/v1/spaces/{space}/conversations/maya-jonas/messages",
                     params={"limit": 2}).json()
    assert [m["id"] for m in page["messages"]] == ["s1:1", "s1:2"] and page["next_cursor"] == 1
    more = alice.get(f"/v1/spaces/{space}/conversations/maya-jonas/messages",
                     params={"limit": 2, "cursor": page["next_cursor"]}).json()
    assert [m["id"] for m in more["messages"]] == ["s1:3", "s1:4"]
    turn = page["messages"][0]["turn_id"]
    unit = alice.get(f"/v1/spaces/{space}/units/{quote(turn, safe='')}")  # ids hold '#', '%'

    assert unit.status_code == 200 and unit.json()["kind"] == "Turn", unit.text
    assert bob.get(f"/v1/spaces/{space}/conversations").status_code == 403
    assert bob.post(f"/v1/spaces/{space}/conversations/maya-jonas/forget",
                    json={}).status_code == 403
    for empty in ({"messages": []}, {"sessions": [], "messages": []}):  # forgets nothing
        kept = alice.post(f"/v1/spaces/{space}/conversations/maya-jonas/forget", json=empty)
        assert kept.status_code == 200 and kept.json()["messages"] == 0, kept.text
        assert "nothing was forgotten" in kept.json()["note"]
    unasked = alice.post(f"/v1/spaces/{space}/conversations/maya-jonas/forget", json={})
    assert unasked.status_code == 400 and "whole_conversation" in unasked.text
    assert alice.get(f"/v1/spaces/{space}/conversations").json()[0]["messages"] == 17
    gone = alice.post(f"/v1/spaces/{space}/conversations/maya-jonas/forget",
                      json={"messages": ["s1:1"]})
    assert gone.status_code == 200, gone.text
    assert gone.json() == {"conversation": "maya-jonas", "messages": 1, "sessions": 0,
                           "whole_conversation": False, "layers": ["edus"], "note": "",
                           "pending": ["edus"], "conversations": ["maya-jonas"]}
    bad = alice.post(f"/v1/spaces/{space}/conversations/maya-jonas/forget",
                     json={"messages": ["s1:1"]})
    assert bad.status_code == 404 and "has no message 's1:1'" in bad.json()["error"]["message"]
    assert "pottery" not in alice.post(f"/v1/spaces/{space}/search", json={
        "question": "Which class did Maya sign up for?", "budget": 40}).json()["context"]
    fixed = alice.post(f"/v1/spaces/{space}/corrections", json={
        "turn_id": page["messages"][1]["turn_id"], "text": "Nice! Is that the Friday one?"})
    assert fixed.status_code == 200 and fixed.json()["revisions"] == 1, fixed.text
    assert bob.post(f"/v1/spaces/{space}/corrections", json={
        "turn_id": page["messages"][1]["turn_id"], "text": "x"}).status_code == 403
    nowhere = alice.get(f"/v1/spaces/{space}/nowhere")  # the framework's errors: same format
    assert nowhere.status_code == 404 and nowhere.json()["error"]["type"] == "not_found"
    wrong = alice.put(f"/v1/spaces/{space}/search", json={})
    assert wrong.status_code == 405 and wrong.json()["error"]["type"] == "method_not_allowed"
    changes = [c for c in alice.get(f"/v1/spaces/{space}/history",
                                    params={"limit": 10}).json()
               if c["surface"] != "background"]  # the layers derived again meanwhile
    assert [(c["what"], c["surface"], c["caller"]) for c in changes[:3]] == [
        ("correct: message embedded again", "rest", caller_id(ALICE)),
        ("correct", "rest", caller_id(ALICE)),
        ("forget", "rest", caller_id(ALICE))]
    assert changes[3]["what"] == "ingest" and changes[3]["surface"] == "python"
    assert ALICE not in json.dumps(changes)  # a digest of the token, never the token
    assert bob.get(f"/v1/spaces/{space}/history").status_code == 403
    # a conversation key holding '/' (no path segment can carry it): named in body or query
    slashed = alice.post(f"/v1/spaces/{space}/messages", json={
        "conversation": "team/alpha", "messages": [{"speaker": "Ann", "text": "Standup at 9."}]})
    assert slashed.status_code == 200 and slashed.json()["conversation"] == "team/alpha"
    listed = alice.get(f"/v1/spaces/{space}/messages", params={"conversation": "team/alpha"})
    assert [m["text"] for m in listed.json()["messages"]] == ["Standup at 9."]
    assert alice.post(f"/v1/spaces/{space}/forget", json={
        "conversation": "team/alpha", "whole_conversation": True}).json()[
        "whole_conversation"] is True
    unnamed = alice.post(f"/v1/spaces/{space}/forget", json={})
    assert unnamed.status_code == 422 and unnamed.json()["error"]["field"] == "body.conversation"
    # values no route can use are a 400 (422: not the request's schema) naming the field,
    # never a 500, and change nothing
    def stored() -> list[dict[str, Any]]:  # what a request could change: not the layers
        # the background derivation is still catching up with (it may finish meanwhile)
        return [{k: v for k, v in c.items() if k != "pending_layers"}
                for c in alice.get(f"/v1/spaces/{space}/conversations").json()]
    before = stored()
    turn = alice.get(f"/v1/spaces/{space}/conversations/maya-jonas/messages").json()[
        "messages"][0]["turn_id"]
    for method, path, body, params, field in [
            ("GET", "conversations/maya-jonas/messages", None, {"cursor": 2**70}, "cursor"),
            ("POST", "corrections", {"turn_id": turn, "text": "sure \udc80"}, None, "text"),
            ("POST", "corrections", {"turn_id": turn + "\udc80", "text": "ok"}, None,
             "turn_id"),
            ("POST", "forget", {"conversation": "maya\udc80", "messages": ["s1:2"]}, None,
             "conversation"),
            ("POST", "conversations/maya-jonas/forget", {"messages": ["s1:2\udc80"]}, None,
             "messages[0]"),
            ("POST", "search", {"question": "Who?", "budget": True}, None, "budget"),
            ("POST", "corrections", {"turn_id": turn, "text": "ok", "keep_old": "no"}, None,
             "keep_old")]:
        answer = alice.request(  # JSON's escapes carry a lone surrogate as a client sends it
            method, f"/v1/spaces/{space}/{path}", params=params,
            content=None if body is None else json.dumps(body),
            headers={"Content-Type": "application/json"})
        assert answer.status_code in (400, 422), (path, answer.text)
        assert field in answer.json()["error"]["field"], (path, answer.text)
    assert stored() == before
    with pytest.raises(InputError, match="unpaired surrogate"):
        memory.unit(space, "a\udc80")


def test_rest_strips_recalled_context(server: tuple[str, str, str], memory: Memory) -> None:
    url, space, _other = server
    alice = httpx.Client(base_url=url, headers={"Authorization": f"Bearer {ALICE}"},
                         timeout=60)
    recalled = mark("[1 May 2025]\nMaya: the kiln is in the garage.")
    added = alice.post(f"/v1/spaces/{space}/conversations/chat/messages", json={"messages": [
        {"speaker": "Maya", "text": f"{recalled}\nThe glaze test came out blue.", "id": "g1"},
        {"speaker": "Maya", "text": recalled, "id": "g2"}]}).json()
    assert (added["added"], added["stripped"], added["emptied"]) == (["g1"], 2, 1)
    found = alice.post(f"/v1/spaces/{space}/search", json={"question": "What colour was the "
                                                           "glaze?", "budget": 200}).json()
    assert found["marked_context"] == mark(found["context"]) and "blue" in found["context"]
    [stored] = memory.messages(space, "chat").messages
    assert stored.text == "The glaze test came out blue."
    fixed = alice.post(f"/v1/spaces/{space}/corrections", json={
        "turn_id": stored.turn_id, "text": f"The glaze came out green. {recalled}"})
    assert fixed.status_code == 200 and fixed.json()["stripped"] == 1, fixed.text
    refused = alice.post(f"/v1/spaces/{space}/corrections", json={
        "turn_id": stored.turn_id, "text": recalled})
    assert refused.status_code == 400 and "only recalled context" in refused.text


def test_a_hit_names_what_to_forget(server: tuple[str, str, str], memory: Memory) -> None:
    """search, then forget by the ids a hit carries, then add the same history again: the
    forgotten message stays forgotten, and the answer says so."""
    url, space, _ = server
    alice = httpx.Client(base_url=url, headers={"Authorization": f"Bearer {ALICE}"},
                         timeout=60)
    empty = alice.post(f"/v1/spaces/{space}/search", json={"question": "home address"}).json()
    assert empty["hits"] == [] and "holds nothing" in empty["note"]  # said, not just empty
    history = [{"speaker": "user", "text": "My home address is 12 Rua Augusta.", "id": "a1"},
               {"speaker": "user", "text": "My locker code is 3317.", "id": "a2"}]
    for conversation in ("team/notes", "other"):
        assert alice.post(f"/v1/spaces/{space}/messages", json={
            "conversation": conversation, "messages": history}).status_code == 200
    found = alice.post(f"/v1/spaces/{space}/search", json={"question": "home address"}).json()
    hit = next(h for h in found["hits"] if "Rua Augusta" in h["text"])
    assert hit["id"] and len(hit["source_turn_ids"]) == len(hit["source_conversations"]) \
        == len(hit["source_ids"])
    where = hit["source_conversations"][0]
    message = hit["source_ids"][0]
    assert where in ("team/notes", "other") and message == "a1"
    unit = alice.get(f"/v1/spaces/{space}/units/{quote(hit['source_turn_ids'][0], safe='')}")
    assert unit.status_code == 200 and "Rua Augusta" in unit.json()["properties"]["text"]
    gone = alice.post(f"/v1/spaces/{space}/forget", json={"conversation": where,
                                                          "messages": [message]})
    assert gone.status_code == 200 and gone.json()["messages"] == 1
    again = alice.post(f"/v1/spaces/{space}/messages", json={"conversation": where,
                                                             "messages": history}).json()
    assert (again["added"], again["skipped"], again["forgotten"]) == ([], ["a2"], ["a1"])
    texts = [m.text for m in memory.messages(space, where).messages]
    assert texts == ["My locker code is 3317."]  # the other message, once


def test_the_schema_declares_what_the_server_answers(server: tuple[str, str, str],
                                                     memory: Memory) -> None:
    """The OpenAPI document declares every error answer and its body, so a generated client
    types them; times are RFC 3339, with their offset; a conversation the space does not hold
    (forgotten, or its space deleted) is 404, not an empty page."""
    url, space, _ = server
    alice = httpx.Client(base_url=url, headers={"Authorization": f"Bearer {ALICE}"},
                         timeout=60)
    schema = alice.get("/openapi.json").json()
    search = schema["paths"]["/v1/spaces/{space}/search"]["post"]["responses"]
    assert {"400", "401", "403", "404", "409", "413", "422", "500", "501", "503"} <= set(search)
    assert search["422"]["content"]["application/json"]["schema"]["$ref"].endswith("/ErrorOut")
    detail = schema["components"]["schemas"]["ErrorDetail"]
    assert set(detail["required"]) == {"type", "message", "field"}
    said = schema["components"]["schemas"]["StoredMessage"]["properties"]["said_at"]
    assert {"type": "string", "format": "date-time"} in said["anyOf"]

    alice.post(f"/v1/spaces/{space}/conversations/chat/messages", json={"messages": [
        {"speaker": "Maya", "text": "The kiln is fired on Fridays.", "id": "k1",
         "at": "2024-04-02T19:00:00"}]})
    page = alice.get(f"/v1/spaces/{space}/conversations/chat/messages")
    [message] = page.json()["messages"]
    assert message["said_at"] == "2024-04-02T19:00:00+00:00"  # kept in UTC, sent with it
    [change] = alice.get(f"/v1/spaces/{space}/history", params={"limit": 1}).json()
    assert change["at"].endswith("+00:00")
    missing = alice.get(f"/v1/spaces/{space}/conversations/nothing-here/messages")
    assert missing.status_code == 404 and missing.json()["error"]["type"] == "not_found"
    assert alice.delete(f"/v1/spaces/{space}").status_code == 200
    gone = alice.get(f"/v1/spaces/{space}/conversations/chat/messages")
    assert gone.status_code == 404 and "holds no conversation 'chat'" in gone.text
    unit = alice.get(f"/v1/spaces/{space}/units/{quote('no-such-unit', safe='')}")
    assert unit.status_code == 404


def test_the_schema_states_the_rules_the_server_keeps(server: tuple[str, str, str],
                                                      memory: Memory) -> None:
    """What schemathesis found the schema allowed and the server refused (or the reverse),
    each now declared or answered as declared: a message's speaker and text given once each,
    a forget saying what it forgets, printable keys, a conversation named in the body where
    the path has none, a time that is a time, 404 for a message that is not there, and a 405
    naming every method of its path."""
    url, space, _ = server
    alice = httpx.Client(base_url=url, headers={"Authorization": f"Bearer {ALICE}"},
                         timeout=60)
    parts = alice.get("/openapi.json").json()["components"]["schemas"]
    rules = parts["MessageIn"]["allOf"]
    assert [r["required"] for r in rules[1]["oneOf"]] == [["speaker"], ["role"], ["name"]]
    assert [r["required"] for r in rules[2]["oneOf"]] == [["text"], ["content"]]
    assert parts["ForgetIn"]["oneOf"] and parts["ForgetFrom"]["required"] == ["conversation"]
    assert parts["AddTo"]["required"] == ["messages", "conversation"]
    assert parts["ForgetIn"]["properties"]["messages"]["items"]["pattern"].startswith("^[^")
    memory.ingest(SAMPLE, space=space, layers="edus")
    for bad, field in (({"messages": [{"speaker": "Maya", "name": "M", "text": "x"}]},
                        "messages[0]"),
                       ({"messages": [{"speaker": "Ma\u0007ya", "text": "x"}]},
                        "messages[0].speaker")):
        refused = alice.post(f"/v1/spaces/{space}/conversations/chat/messages", json=bad)
        assert refused.status_code == 400 and refused.json()["error"]["field"] == field
    numeric = alice.get(f"/v1/spaces/{space}/conversations/maya-jonas/messages",
                        params={"since": "0.5"})
    assert numeric.status_code == 400 and numeric.json()["error"]["field"] == "since"
    unknown = alice.post(f"/v1/spaces/{space}/corrections",
                         json={"turn_id": "no-such-turn", "text": "x"})
    assert unknown.status_code == 404 and unknown.json()["error"]["field"] == "turn_id"
    nowhere = alice.post(f"/v1/spaces/{space}/conversations/nope/forget",
                         json={"messages": ["s1:1"]})
    assert nowhere.status_code == 404
    options = alice.options(f"/v1/spaces/{space}/messages")
    assert options.status_code == 405
    assert {"GET", "POST"} <= set(options.headers["allow"].split(", "))
    assert len(memory.messages(space, "maya-jonas").messages) == 17  # nothing refused changed



# the routes that are not GETs but change nothing
READS = {("post", "/v1/spaces/{space}/search"), ("post", "/v1/spaces/{space}/answer")}


def changing_bodies(turn: str) -> dict[tuple[str, str], dict[str, Any] | None]:
    """A valid body for every route that is not a GET and changes a space, so that only the
    caller's token can refuse it."""
    said = [{"speaker": "Eve", "text": "I wrote this while read-only."}]
    return {
        ("post", "/v1/spaces/{space}/conversations/{conversation}/messages"):
            {"messages": said},
        ("post", "/v1/spaces/{space}/messages"):
            {"conversation": "maya-jonas", "messages": said},
        ("post", "/v1/spaces/{space}/conversations/{conversation}/forget"):
            {"messages": ["s1:1"]},
        ("post", "/v1/spaces/{space}/forget"): {"conversation": "maya-jonas",
                                                "whole_conversation": True},
        ("post", "/v1/spaces/{space}/corrections"): {"turn_id": turn, "text": "Changed."},
        ("post", "/v1/spaces/{space}/refresh"): None,
        ("delete", "/v1/spaces/{space}"): None,
    }


def test_another_tenants_space_is_refused_on_every_route(server: tuple[str, str, str],
                                                         memory: Memory) -> None:
    """Bob's token, on every route of the server's schema that names a space, with Alice's
    space and a valid request: 403, the same message, and nothing of hers read or changed.
    The routes come from /openapi.json, so a new one is checked the day it is added."""
    url, space, other = server
    memory.ingest(SAMPLE, space=space, layers="edus")
    turn = memory.messages(space, "maya-jonas", limit=1).messages[0].turn_id
    bob = httpx.Client(base_url=url, headers={"Authorization": f"Bearer {BOB}"}, timeout=60)
    bodies = {**changing_bodies(turn),
              **{route: {"question": "What did Maya adopt?"} for route in READS}}
    before = [m.model_dump() for m in memory.messages(space, "maya-jonas", limit=500).messages]
    checked = 0
    for path, item in bob.get("/openapi.json").json()["paths"].items():
        if "{space}" not in path:
            continue
        for method in item:
            concrete = path.replace("{space}", space).replace(
                "{conversation}", "maya-jonas").replace("{unit_id}", quote(turn, safe=""))
            refused = bob.request(method, concrete, json=bodies.get((method, path)),
                                  params={"conversation": "maya-jonas"})
            assert refused.status_code == 403, (method, path, refused.text)
            assert refused.json()["error"]["message"] == (
                f"space {space!r} is not served here; allowed: {other}")
            assert "Maya" not in refused.text and "Pepper" not in refused.text
            checked += 1
    assert checked >= 14  # the 14 routes of today; more as they come
    assert [m.model_dump() for m in memory.messages(space, "maya-jonas", limit=500).messages] \
        == before


def test_a_read_only_token_reads_and_changes_nothing(server: tuple[str, str, str],
                                                     memory: Memory) -> None:
    """A token given as ``{"spaces": [...], "read_only": true}`` lists, reads and searches
    its spaces; every route that could change one refuses it (403) and changes nothing. The
    routes are read from the server's own schema, so a new route that changes a space fails
    here until it is checked."""
    url, space, _ = server
    reader = httpx.Client(base_url=url, headers={"Authorization": f"Bearer {READER}"},
                          timeout=60)
    memory.ingest(SAMPLE, space=space, layers="edus")
    turn = memory.messages(space, "maya-jonas", limit=1).messages[0].turn_id
    bodies = changing_bodies(turn)
    schema = reader.get("/openapi.json").json()
    routes = {(method, path) for path, item in schema["paths"].items() for method in item
              if method != "get"}
    assert routes == set(bodies) | READS

    def stored() -> Any:
        return ([m.model_dump() for m in memory.messages(space, "maya-jonas", limit=500).messages],
                [c.at for c in memory.history(space, limit=500)])
    before = stored()
    for method, path in bodies:
        concrete = path.replace("{space}", space).replace("{conversation}", "maya-jonas")
        refused = reader.request(method, concrete, json=bodies[method, path])
        assert refused.status_code == 403, (path, refused.text)
        assert "read-only" in refused.json()["error"]["message"], refused.text
    assert stored() == before
    assert reader.get("/v1/spaces").json() == [{"space": space, "conversations": 1,
                                                "turns": 17, "writes": False}]
    found = reader.post(f"/v1/spaces/{space}/search", json={"question": "What did Maya adopt?",
                                                            "budget": 300, "explain": True})
    assert found.status_code == 200 and "Pepper" in found.json()["context"]
    assert reader.get(f"/v1/spaces/{space}/history").status_code == 200
    assert reader.get(f"/v1/spaces/{space}/units/{quote(turn, safe='')}").status_code == 200
    assert reader.get(f"/v1/spaces/{space}-bob/conversations").status_code == 403


def test_a_server_warms_neo4j_with_one_search_of_its_smallest_space(memory: Memory,
                                                                    space: str) -> None:
    """``graphmem serve`` searches once as it starts (graphmem.serve.warm): the smallest served
    space that holds something, its answer thrown away; none when nothing is stored, and a
    failing search stops nothing."""
    from graphmem.serve.warm import warm_neo4j

    asked: list[str] = []

    class Recording:
        def search(self, question: str, *, space: str, **arguments: Any) -> Any:
            asked.append(space)
            return memory.search(question, space=space, **arguments)

    small, big, empty = f"{space}-small", space, f"{space}-empty"
    memory.ingest(SAMPLE, space=big)
    memory.add_messages(small, "c", [{"speaker": "Ann", "text": "A short note."}])
    try:
        took = warm_neo4j(memory, Recording(), [big, small, empty])
        assert took is not None and took > 0 and asked == [small]
        assert warm_neo4j(memory, Recording(), [empty]) is None and asked == [small]

        class Failing:
            def search(self, question: str, *, space: str, **arguments: Any) -> Any:
                raise RuntimeError("Neo4j went away")

        assert warm_neo4j(memory, Failing(), [big]) is None

        class Unreachable:  # Neo4j down as the server starts: the listing fails too
            def spaces(self) -> Any:
                raise RuntimeError("Neo4j went away")

        assert warm_neo4j(Unreachable(), Recording(), [big]) is None  # type: ignore[arg-type]
    finally:
        memory.delete_space(small)
