"""``kg push`` and :mod:`kg.stores.bolt` against a real Bolt server (see tests/servers_bolt.py)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from kg.core.errors import StoreError
from kg.core.model import Concept, KnowledgeGraph, Mention, Paper
from kg.core.processes import free_port
from kg.stores.bolt import RELATIONSHIP_TYPES, connect, counts, push


def kg_cli(*args, env=None, check=True):
    proc = subprocess.run([sys.executable, "-m", "kg", *map(str, args)], capture_output=True,
                          text=True, timeout=300, env={**os.environ, **(env or {})})
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


def expected_counts(kg: KnowledgeGraph) -> dict[str, int]:
    return {
        "Paper": len(kg.papers), "Concept": len(kg.concepts),
        "MENTIONS": sum(len(c) for c in kg.paper_concepts.values()),
        "BROADER": sum(len({b for b in c.broader if b in kg.concepts})
                       for c in kg.concepts.values()),
        **{rel: sum(1 for t, _, _ in kg.relation_edges if RELATIONSHIP_TYPES[t] == rel)
           for rel in RELATIONSHIP_TYPES.values()},
    }


def snapshot(g) -> dict:
    """Everything the push wrote, as plain sorted data."""
    return {
        "papers": g.run("MATCH (p:Paper) RETURN p.id AS id, properties(p) AS props "
                        "ORDER BY id"),
        "concepts": g.run("MATCH (c:Concept) RETURN c.id AS id, properties(c) AS props "
                          "ORDER BY id"),
        "mentions": g.run("MATCH (p:Paper)-[m:MENTIONS]->(c:Concept) RETURN p.id AS p, "
                          "c.id AS c, m.count AS n, m.evidence AS ev, m.first AS first "
                          "ORDER BY p, c"),
        "broader": g.run("MATCH (a:Concept)-[:BROADER]->(b:Concept) RETURN a.id AS a, "
                         "b.id AS b ORDER BY a, b"),
    }


def test_push_writes_the_schema_and_the_model(bolt, example_kg):
    g = bolt.load(example_kg)
    assert counts(g) == expected_counts(example_kg)
    constraints = g.run("SHOW CONSTRAINTS")
    unique = {(tuple(c["labelsOrTypes"]), tuple(c["properties"])) for c in constraints
              if "UNIQUE" in str(c["type"]).upper()}
    assert {(("Paper",), ("id",)), (("Concept",), ("id",))} <= unique
    p = g.run("MATCH (p:Paper {id: $id}) RETURN properties(p) AS p",
              {"id": "neurips2026-abstracts-11"})[0]["p"]
    model = example_kg.papers["neurips2026-abstracts-11"]
    assert p["title"] == model.title and p["abstract"] == model.abstract
    gnn = g.run("MATCH (c:Concept {id: 'graph-neural-network'}) RETURN properties(c) AS c")
    c = gnn[0]["c"]
    assert c["idf"] == pytest.approx(example_kg.idf("graph-neural-network"))
    assert c["papers"] == len(example_kg.concept_papers["graph-neural-network"])
    assert "GNN" in c["aliases"] and c["type"] == "method"
    m = g.run("MATCH (:Paper {id: $p})-[m:MENTIONS]->(:Concept {id: 'graph-neural-network'}) "
              "RETURN m.count AS n, m.evidence AS ev", {"p": "neurips2026-abstracts-3"})[0]
    mentions = [x for x in example_kg.mentions_by_paper["neurips2026-abstracts-3"]
                if x.concept == "graph-neural-network"]
    assert m["n"] == len(mentions)
    assert m["ev"] == list(dict.fromkeys(x.sentence for x in mentions))


def test_push_twice_changes_nothing(bolt, example_kg):
    g = bolt.load(example_kg)
    before = snapshot(g)
    assert push(example_kg, g, batch_size=7) == push(example_kg, g)
    assert snapshot(g) == before
    assert counts(g) == expected_counts(example_kg)


def test_rerun_completes_an_interrupted_push(bolt, example_kg):
    g = bolt.load(example_kg)
    full = snapshot(g)
    # What an interruption leaves: the first batches committed, the rest not.
    g.run("MATCH (p:Paper) WHERE p.id > 'neurips2026-abstracts-5' DETACH DELETE p", write=True)
    g.run("MATCH ()-[m:MENTIONS]->() WITH m LIMIT 20 DELETE m", write=True)
    bolt.forget()
    assert counts(g)["Paper"] < len(example_kg.papers)
    push(example_kg, g, batch_size=10)
    assert snapshot(g) == full


def test_values_travel_as_parameters(bolt):
    tricky = 'Quotes \' and " and }) DETACH DELETE n // — naïve ünïcödé \\ $x'
    kg = KnowledgeGraph(
        papers={"p'1": Paper("p'1", tricky, tricky + " uses GNNs.", year=None, venue=tricky)},
        concepts={"gnn": Concept("gnn", "graph neural network", "method", aliases=[tricky])},
        mentions=[Mention("p'1", "gnn", "abstract", len(tricky) + 6, len(tricky) + 10, "GNNs",
                          tricky, "lexicon")])
    g = bolt.load(kg)
    row = g.run("MATCH (p:Paper)-[m:MENTIONS]->(c:Concept) RETURN p.id AS id, p.title AS t, "
                "p.venue AS v, p.year AS y, c.aliases AS a, m.evidence AS e")
    assert row == [{"id": "p'1", "t": tricky, "v": tricky, "y": None, "a": [tricky],
                    "e": [tricky]}]


def test_replace_drops_what_a_previous_graph_left(bolt, example_kg):
    small = KnowledgeGraph(papers={"only": Paper("only", "T", "A")})
    g = bolt.load(example_kg)
    push(small, g)
    assert counts(g)["Paper"] == len(example_kg.papers) + 1  # MERGE adds, never removes
    push(small, g, replace=True)
    bolt.forget()
    assert counts(g) == {"Paper": 1, "Concept": 0, "MENTIONS": 0, "BROADER": 0,
                         **dict.fromkeys(RELATIONSHIP_TYPES.values(), 0)}


def test_neurips2018_pushed_twice_keeps_identical_counts(bolt, neurips2018_kg):
    kg = neurips2018_kg
    g = bolt.load(kg)
    first = counts(g)
    assert first == expected_counts(kg)
    push(kg, g)
    assert counts(g) == first


def test_cli_push_with_options_and_with_environment(bolt, example_out, example_kg):
    bolt.forget()
    proc = kg_cli("push", example_out, "--replace", *bolt.cli_args())
    n = expected_counts(example_kg)
    assert f"{n['Paper']} papers, {n['Concept']} concepts, {n['MENTIONS']} MENTIONS" in proc.stderr
    assert proc.stdout == ""  # a summary is status, not data
    env = {"NEO4J_URI": bolt.uri, "NEO4J_USER": bolt.user, "NEO4J_PASSWORD": bolt.password,
           "NEO4J_DATABASE": bolt.database or ""}
    proc = kg_cli("push", example_out, "-q", env=env)
    assert proc.stdout == proc.stderr == ""
    assert counts(bolt.graph) == n


def _one_line_error(proc) -> str:
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("kg: error: "), proc.stderr
    return lines[0]


def test_cli_push_errors_are_one_line(bolt, example_out):
    port = free_port()
    line = _one_line_error(kg_cli("push", example_out, "--uri", f"bolt://127.0.0.1:{port}",
                                  "--password", "x", check=False))
    assert f"cannot reach a Bolt server at bolt://127.0.0.1:{port}" in line
    args = bolt.cli_args()
    wrong = args[: args.index("--password") + 1] + ["not-the-password"] \
        + args[args.index("--password") + 2:]
    line = _one_line_error(kg_cli("push", example_out, *wrong, check=False))
    assert "refused the user name or password" in line
    base = args[: args.index("--database")] if "--database" in args else args
    line = _one_line_error(kg_cli("push", example_out, *base, "--database", "nosuchdb",
                                  check=False))
    assert "has no database 'nosuchdb'" in line
    line = _one_line_error(kg_cli("push", example_out, "--uri", "http://nope", check=False))
    assert "not a Bolt URI" in line
    line = _one_line_error(kg_cli("push", example_out, env={"NEO4J_URI": ""}, check=False))
    assert "pass --uri" in line


def test_connect_errors_are_store_errors(bolt):
    with pytest.raises(StoreError, match="refused the user name or password"):
        connect(bolt.uri, user=bolt.user, password="wrong", database=bolt.database)
