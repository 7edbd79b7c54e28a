"""The local server itself: Bolt, GDS, the HTTP API and Browser; the schema."""

from __future__ import annotations

import urllib.request

from graphmem.config import Settings
from graphmem.neo4j_server.local import LocalNeo4j
from graphmem.store import GraphStore


def test_server_answers_with_gds(settings: Settings, neo4j_server: object) -> None:
    status = LocalNeo4j(settings).status()
    assert status.running and status.neo4j_version and status.neo4j_version.startswith("5.26")
    assert status.gds_version and status.gds_version.startswith("2.13")


def test_start_is_a_no_op_when_running(settings: Settings, neo4j_server: object) -> None:
    server = LocalNeo4j(settings)
    before = server.status()
    after = server.start()
    assert after.running and after.pid == before.pid


def test_http_and_browser_are_served(settings: Settings, neo4j_server: object) -> None:
    base = f"http://127.0.0.1:{settings.neo4j_http_port}"
    with urllib.request.urlopen(f"{base}/", timeout=10) as response:
        assert b"bolt_direct" in response.read()
    with urllib.request.urlopen(f"{base}/browser/", timeout=10) as response:
        assert response.status == 200 and b"<html" in response.read().lower()


def test_gds_page_rank_runs(store: GraphStore) -> None:
    with store.driver.session(database=store.database) as session:
        record = session.run(
            "CALL gds.graph.project.cypher('gm-smoke', "
            "'UNWIND [1,2,3] AS i RETURN i AS id', "
            "'RETURN 1 AS source, 2 AS target UNION RETURN 2 AS source, 3 AS target') "
            "YIELD graphName "
            "CALL gds.pageRank.stream('gm-smoke') YIELD nodeId, score "
            "WITH max(score) AS top CALL gds.graph.drop('gm-smoke') YIELD graphName "
            "RETURN top"
        ).single()
    assert record is not None and record["top"] > 0.15


def test_schema_is_idempotent_and_online(store: GraphStore) -> None:
    def indexes() -> dict[str, tuple[str, str]]:
        with store.driver.session(database=store.database) as session:
            rows = session.run("SHOW INDEXES YIELD name, type, state RETURN name, type, state")
            return {r["name"]: (r["type"], r["state"]) for r in rows}

    before = indexes()
    store.apply_schema()
    after = indexes()
    assert before == after
    assert after["turn_embedding"] == ("VECTOR", "ONLINE")
    assert after["turn_text"] == ("FULLTEXT", "ONLINE")
    assert after["turn_id"][0] == "RANGE"  # the uniqueness constraint's index
    with store.driver.session(database=store.database) as session:
        constraints = {r["name"] for r in session.run("SHOW CONSTRAINTS YIELD name")}
    assert {"space_id", "conversation_id", "session_id", "turn_id", "speaker_id"} <= constraints


def test_graphdatascience_client_connects(settings: Settings, neo4j_server: object) -> None:
    from graphdatascience import GraphDataScience

    gds = GraphDataScience(settings.neo4j_uri, auth=(settings.neo4j_user,
                                                     settings.neo4j_password.get_secret_value()))
    try:
        assert str(gds.server_version()).startswith("2.13")
        assert gds.run_cypher("RETURN 21 * 2 AS x")["x"][0] == 42
    finally:
        gds.close()


def test_remote_uri_is_not_started_here(tmp_path: object) -> None:
    import pytest

    from graphmem.neo4j_server.local import Neo4jServerError

    remote = Settings(neo4j_uri="bolt://192.0.2.1:7687", home=tmp_path)  # TEST-NET: nobody
    server = LocalNeo4j(remote)
    server._port_open = lambda: False  # type: ignore[method-assign]  # never dial out
    with pytest.raises(Neo4jServerError, match="this machine only"):
        server.start()
