"""A Cypher query that kg stops waiting for ends on the local ArcadeDB server too.

ArcadeDB ignores Bolt's transaction timeout and runs a query on after its client has gone;
:meth:`kg.stores.bolt.BoltGraph.cancel` ends the connection's queries through the server's
HTTP API (the CLI calls it at ``--timeout`` and on Ctrl-C: tests/test_hostile_queries.py).
"""

from __future__ import annotations

import threading
import time

import pytest
import requests

SLOW = "MATCH (a), (b), (c), (d) WHERE a.id + b.id + c.id + d.id = 'x' RETURN count(*) AS n"


def _running(fx) -> list[dict]:
    url = f"http://127.0.0.1:{fx.server.http_port}/api/v1/server"
    listed = requests.post(url, json={"command": "list queries"}, auth=(fx.user, fx.password),
                           timeout=10).json()["result"]
    return [q for q in listed if SLOW in q["text"]]


def test_cancel_ends_the_query_on_the_server(bolt, example_kg):
    if bolt.server is None:
        pytest.skip("NEO4J_URI names another server: Neo4j ends a query at its timeout")
    bolt.load(example_kg)
    graph = bolt.connect()
    graph.admin = (f"http://127.0.0.1:{bolt.server.http_port}/api/v1/server",
                   (bolt.user, bolt.password))
    assert graph.cancel() == 0  # nothing of this connection runs
    failed: list[BaseException] = []

    def ask():
        try:
            graph.run_raw(SLOW, timeout=1)  # Bolt's transaction timeout: ArcadeDB ignores it
        except BaseException as e:
            failed.append(e)

    worker = threading.Thread(target=ask, daemon=True)
    worker.start()
    try:
        deadline = time.monotonic() + 60
        while not _running(bolt) and time.monotonic() < deadline:
            time.sleep(0.2)
        time.sleep(2)  # past the transaction timeout of 1 s: still running
        running = _running(bolt)
        assert len(running) == 1 and graph.mark in running[0]["text"]
        assert graph.cancel() == 1
        worker.join(30)
        assert not worker.is_alive() and failed  # the client hears that it ended
        assert _running(bolt) == []
    finally:
        for q in _running(bolt):  # a failed test leaves no query burning a core
            requests.post(f"http://127.0.0.1:{bolt.server.http_port}/api/v1/server",
                          json={"command": f"terminate query {q['id']}"},
                          auth=(bolt.user, bolt.password), timeout=10)
        graph.close()


def test_marked_queries_read_as_before(bolt, example_kg):
    if bolt.server is None:
        pytest.skip("the mark is for the local ArcadeDB server")
    graph = bolt.load(example_kg)
    plain = graph.run_raw("EXPLAIN MATCH (p:Paper) RETURN count(p) AS n")
    marked = bolt.connect()
    try:
        marked.admin = ("http://127.0.0.1:1/api/v1/server", ("u", "p"))  # nothing answers there
        assert marked.run("MATCH (p:Paper) RETURN count(p) AS n") == [{"n": 19}]
        # the mark ends the text: ArcadeDB still sees EXPLAIN at its start (no rows, a plan)
        assert marked.run_raw("EXPLAIN MATCH (p:Paper) RETURN count(p) AS n") == plain
        assert plain[1] == []
        assert marked.cancel() == 0  # an HTTP API that does not answer: nothing, no error
    finally:
        marked.close()
