"""``kg push-sparql`` against a real Virtuoso started by the ``virtuoso`` fixture."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from kg.cli import cli
from kg.core.errors import StoreError
from kg.core.processes import free_port
from kg.stores.sparql_push import push

COUNT = "SELECT (COUNT(*) AS ?n) WHERE {{ GRAPH <{g}> {{ ?s ?p ?o }} }}"


def count(virtuoso, graph):
    return int(virtuoso.select(COUNT.format(g=graph))[0]["n"])


def test_put_replaces_the_named_graph(virtuoso, example_out, example_build):
    graph = "http://example.org/kg/put"
    n = push(example_out, virtuoso.gsp_url, graph=graph, user="dba", password="dba")
    assert n == example_build.triples
    assert count(virtuoso, graph) == n
    assert push(example_out, virtuoso.gsp_url, graph=graph, user="dba", password="dba") == n
    assert count(virtuoso, graph) == n  # a repeat push leaves the same triples
    rows = virtuoso.select(
        "PREFIX skos: <http://www.w3.org/2004/02/skos/core#> SELECT ?l WHERE { GRAPH <"
        + graph + "> { <https://w3id.org/kg-abstracts/concept/minhash> skos:prefLabel ?l } }")
    assert [r["l"] for r in rows] == ["MinHash"]


def test_update_method_replaces_too_and_keeps_unicode(virtuoso, example_out, example_build):
    graph = "http://example.org/kg/update"
    for _ in range(2):
        push(example_out, virtuoso.update_url, graph=graph, method="update", user="dba",
             password="dba")
        assert count(virtuoso, graph) == example_build.triples
    rows = virtuoso.select(
        "SELECT ?l WHERE { GRAPH <" + graph + "> { ?c <http://www.w3.org/2004/02/skos/core#altLabel>"
        " ?l FILTER(CONTAINS(STR(?l), \"–\")) } }")
    assert "bias–variance tradeoff" in {r["l"] for r in rows}


def test_push_replaces_stale_triples(virtuoso, example_out, neurips2018_out):
    graph = "http://example.org/kg/replace"
    push(neurips2018_out, virtuoso.gsp_url, graph=graph, user="dba", password="dba")
    big = count(virtuoso, graph)
    n = push(example_out, virtuoso.gsp_url, graph=graph, user="dba", password="dba")
    assert count(virtuoso, graph) == n < big


def test_wrong_password_and_missing_credentials(virtuoso, example_out):
    with pytest.raises(StoreError, match="refused the user name or password"):
        push(example_out, virtuoso.gsp_url, user="dba", password="wrong")
    with pytest.raises(StoreError, match="asks for a user name and password"):
        push(example_out, virtuoso.gsp_url)


def test_unreachable_endpoint_is_one_line(example_out):
    url = f"http://127.0.0.1:{free_port()}/sparql-graph-crud-auth"
    with pytest.raises(StoreError, match="cannot reach the SPARQL endpoint .*connection refused"):
        push(example_out, url, user="dba", password="dba")


def test_cli_push_sparql(virtuoso, example_out, example_build):
    graph = "http://example.org/kg/cli"
    args = ["push-sparql", str(example_out), "--endpoint", virtuoso.gsp_url, "--graph", graph,
            "--user", "dba"]
    r = CliRunner().invoke(cli, args + ["--password", "dba"])
    assert r.exit_code == 0, r.output
    assert f"pushed {example_build.triples} triples into <{graph}>" in r.stderr  # status
    assert r.stdout == ""
    assert count(virtuoso, graph) == example_build.triples
    r = CliRunner().invoke(cli, args + ["--password", "nope"])
    assert r.exit_code == 2
    assert r.stderr.startswith("kg: error: the SPARQL endpoint") and r.stderr.count("\n") == 1
    r = CliRunner().invoke(cli, ["push-sparql", str(example_out), "--endpoint", "ftp://x/y"])
    assert r.exit_code == 2 and "not an absolute http(s) IRI" in r.stderr
    r = CliRunner().invoke(cli, ["push-sparql", str(example_out), "--endpoint",
                                 virtuoso.gsp_url, "--graph", "urn:x"])
    assert r.exit_code == 2
