"""``kg cypher``, ``kg serve`` and ``--engine cypher``, run as users run them."""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys

import pytest

from kg.core.processes import free_port, pid_alive
from kg.stores.bolt_server import load_state
from tests.conftest import EXAMPLE, paper_id


def kg(*args, env=None, check=True, timeout=300):
    proc = subprocess.run([sys.executable, "-m", "kg", *map(str, args)], capture_output=True,
                          text=True, timeout=timeout, env={**os.environ, **(env or {})})
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


def one_line_error(proc) -> str:
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("kg: error: "), proc.stderr
    return lines[0]


def test_raw_query_with_parameters_in_every_format(bolt, example_kg):
    bolt.load(example_kg)
    query = ("MATCH (p:Paper)-[m:MENTIONS]->(c:Concept {label: $label}) "
             "RETURN p.id AS id, m.count AS n ORDER BY id")
    rows = json.loads(kg("cypher", query, *bolt.cli_args(), "--param", 'label="MinHash"',
                         "--format", "json").stdout)
    assert rows == [{"id": paper_id(11), "n": len([
        m for m in example_kg.mentions_by_paper[paper_id(11)] if m.concept == "minhash"])}]
    csv = kg("cypher", query, *bolt.cli_args(), "--param", "label=MinHash",
             "--format", "csv").stdout.splitlines()
    assert csv[0] == "id,n" and csv[1].startswith(paper_id(11) + ",")
    table = kg("cypher", query, *bolt.cli_args(), "--param", "label=MinHash").stdout
    assert table.splitlines()[0].split() == ["id", "n"] and paper_id(11) in table


def test_parameters_are_values_never_query_text(bolt, example_kg):
    bolt.load(example_kg)
    hostile = "x'}) MATCH (n) DETACH DELETE n //\" é"
    out = kg("cypher", "RETURN $s AS s, $n AS n, $l AS l", *bolt.cli_args(),
             "--param", f"s={hostile}", "--param", "n=3", "--param", 'l=[1, "two"]',
             "--format", "json").stdout
    assert json.loads(out) == [{"s": hostile, "n": 3, "l": [1, "two"]}]
    count = kg("cypher", "MATCH (p:Paper) RETURN count(p) AS n", *bolt.cli_args(),
               "--format", "json").stdout
    assert json.loads(count) == [{"n": len(example_kg.papers)}]


def test_bad_queries_and_parameters_are_one_line_errors(bolt):
    line = one_line_error(kg("cypher", "MATCH (n RETURN n", *bolt.cli_args(), check=False))
    assert "Cypher query failed" in line
    line = one_line_error(kg("cypher", "RETURN 1", *bolt.cli_args(), "--param", "novalue",
                             check=False))
    assert "--param expects NAME=VALUE" in line
    line = one_line_error(kg("cypher", "RETURN 1", "--uri", "bolt://127.0.0.1:1",
                             check=False))
    assert "cannot reach a Bolt server" in line


@pytest.mark.parametrize("args", [
    ["papers", "{out}", "--concept", "GNNs"],
    ["paper", "{out}", paper_id(11)],
    ["related", "{out}", paper_id(3)],
    ["cooccur", "{out}", "MinHash"],
    ["path", "{out}", "graph neural networks", "contrastive learning"],
    ["stats", "{out}"],
])
def test_cli_engine_cypher_answers_like_sparql(bolt, example_kg, example_out, args):
    bolt.load(example_kg)
    env = {"NEO4J_URI": bolt.uri, "NEO4J_USER": bolt.user, "NEO4J_PASSWORD": bolt.password,
           "NEO4J_DATABASE": bolt.database or ""}
    argv = [a.format(out=example_out) for a in args] + ["--format", "json"]
    got = json.loads(kg(*argv, "--engine", "cypher", env=env).stdout)
    want = json.loads(kg(*argv, "--engine", "sparql").stdout)
    assert got == want and got


def test_papers_by_concept_match_a_careful_reader(bolt, example_kg):
    from queries import papers_for_concept

    g = bolt.load(example_kg)
    for text, expected in {"GNNs": {3, 14, 18}, "MinHash": {11}, "RL": {12, 16, 17},
                           "large language models": {14, 15, 17}}.items():
        assert {r["id"] for r in papers_for_concept(g, text)} == \
            {paper_id(n) for n in expected}


def test_cypher_without_uri_serves_the_build_and_follows_rebuilds(own_cache, tmp_path):
    out = tmp_path / "kg-out"
    own_cache.append(out)
    kg("build", EXAMPLE, "-o", out, "--no-page", "-q")
    count = "MATCH (p:Paper) RETURN count(p) AS n"
    assert json.loads(kg("cypher", count, "--out", out, "--format", "json").stdout) == \
        [{"n": 19}]
    server = load_state(out)
    assert server is not None and pid_alive(server.pid)
    # a rebuild is noticed: the served graph is replaced, by the same server
    small = tmp_path / "two.txt"
    small.write_text("Two papers\n\nWe study MinHash for similarity search.\n\n"
                     "Graph neural networks (GNNs) classify nodes.\n", encoding="utf-8")
    kg("build", small, "-o", out, "--no-page", "-q")
    assert json.loads(kg("cypher", count, "--out", out, "--format", "json").stdout) == \
        [{"n": 2}]
    assert load_state(out).pid == server.pid
    stopped = kg("serve", out, "--stop")
    assert "stopped" in stopped.stderr and not pid_alive(server.pid)
    line = one_line_error(kg("serve", out, "--stop", check=False))
    assert "no local Bolt server is serving" in line


def test_serve_prints_credentials_answers_and_stops_on_ctrl_c(own_cache, example_out):
    from kg.stores.bolt import connect

    own_cache.append(example_out)
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "kg", "serve", str(example_out),
                             "--port", str(port)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=dict(os.environ))
    try:
        line = proc.stdout.readline()
        assert line.startswith(f"serving {example_out} at bolt://127.0.0.1:{port}"), \
            line + proc.stderr.read()
        words = line.split()
        user, password = words[words.index("user") + 1], words[words.index("password") + 1]
        database = words[words.index("database") + 1]
        pid = load_state(example_out).pid
        with connect(f"bolt://127.0.0.1:{port}", user=user, password=password,
                     database=database) as g:
            assert g.run("MATCH (p:Paper) RETURN count(p) AS n") == [{"n": 19}]
        # kg cypher without --uri uses the running server
        got = kg("cypher", "MATCH (c:Concept) RETURN count(c) AS n", "--out", example_out,
                 "--format", "json").stdout
        assert json.loads(got)[0]["n"] > 0
        # the line to paste works as printed
        paste = shlex.split(proc.stdout.readline())
        assert paste[:2] == ["kg", "cypher"] and paste[paste.index("--password") + 1] == password
        got = subprocess.run([sys.executable, "-m", "kg", *paste[1:], "--format", "json"],
                             capture_output=True, text=True, timeout=300, check=True).stdout
        assert json.loads(got) == [{"papers": 19}]
        # another port while it runs: an error naming the running server and how to stop it
        other = free_port()
        for args in ([], ["--background"]):
            line = one_line_error(kg("serve", example_out, "--port", other, *args, check=False))
            assert f"already served at bolt://127.0.0.1:{port} (pid {pid}), not on port {other}" \
                in line and f"'kg serve {example_out} --stop'" in line
        # the same port in the background: the running server, reused
        again = kg("serve", example_out, "--port", port, "--background").stdout
        assert again.startswith(f"serving {example_out} at bolt://127.0.0.1:{port}")
        # refused credentials on its address: the error says which ones it takes
        for host in ("127.0.0.1", "localhost"):
            line = one_line_error(kg("cypher", "RETURN 1", "--uri", f"bolt://{host}:{port}",
                                     "--user", "neo4j", "--password", "wrong", "--out",
                                     example_out, check=False))
            assert f"use --user {user} --password {password}" in line
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=60) == 0
        assert "stopped" in proc.stderr.read()
        assert not pid_alive(pid)
        assert load_state(example_out) is None
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
