"""``kg export``: every format parses back to the graph that was built."""

from __future__ import annotations

import csv
import io

import networkx as nx
import pytest
import rdflib
from click.testing import CliRunner
from rdflib.compare import isomorphic

from kg.cli import cli
from kg.stores.export import CSV_COLUMNS
from tests.conftest import paper_id
from tests.guard import export_bytes


@pytest.mark.parametrize("fmt, parser", [("turtle", "turtle"), ("ntriples", "nt"),
                                         ("jsonld", "json-ld")])
def test_rdf_exports_are_the_built_graph(example_out, built_graph, fmt, parser):
    data = export_bytes(example_out, fmt)
    g = rdflib.Graph().parse(data=data, format=parser)
    assert isomorphic(g, built_graph)
    assert export_bytes(example_out, fmt) == data  # deterministic


def test_turtle_uses_the_project_prefixes(example_out):
    text = export_bytes(example_out, "turtle").decode("utf-8")
    assert "@prefix kgv: <https://w3id.org/kg-abstracts/vocab#> ." in text
    assert "skos:prefLabel" in text


def test_graphml_has_papers_concepts_and_links(example_out, example_kg):
    g = nx.read_graphml(io.BytesIO(export_bytes(example_out, "graphml")))
    kinds = nx.get_node_attributes(g, "kind")
    assert sum(k == "paper" for k in kinds.values()) == 19
    assert sum(k == "concept" for k in kinds.values()) == len(example_kg.concepts)
    # a MultiDiGraph (relations may join two concepts that broader joins), keyed by kind
    assert g.is_multigraph()
    edge = g.edges[f"paper:{paper_id(3)}", "concept:graph-neural-network", "mentions"]
    assert edge["kind"] == "mentions"
    assert edge["count"] == example_kg.paper_concepts[paper_id(3)]["graph-neural-network"] >= 2
    shares = g.edges[f"paper:{paper_id(14)}", f"paper:{paper_id(3)}", "shares"]  # smaller id 1st
    assert shares["kind"] == "shares" and "graph-neural-network" in shares["shared"]


def test_csv_is_one_row_per_paper_concept_link(example_out, example_kg):
    rows = list(csv.DictReader(io.StringIO(export_bytes(example_out, "csv").decode("utf-8"))))
    assert list(rows[0]) == CSV_COLUMNS
    assert len(rows) == sum(len(c) for c in example_kg.paper_concepts.values())
    gnn = next(r for r in rows if r["paper_id"] == paper_id(3)
               and r["concept_label"] == "graph neural network")
    assert gnn["mentions"] == str(example_kg.paper_concepts[paper_id(3)]["graph-neural-network"])
    assert gnn["concept_type"] == "method"
    assert gnn["evidence"].startswith("Graph Neural Networks (GNNs)")


def test_cli_export_to_file_and_stdout(example_out, tmp_path):
    target = tmp_path / "g.nt"
    r = CliRunner().invoke(cli, ["export", str(example_out), "--format", "ntriples",
                                 "-o", str(target)])
    assert r.exit_code == 0, r.output
    assert target.read_bytes() == export_bytes(example_out, "ntriples")
    r = CliRunner().invoke(cli, ["export", str(example_out), "--format", "csv"])
    assert r.exit_code == 0
    assert r.stdout.splitlines()[0] == ",".join(CSV_COLUMNS)


def test_cli_export_errors(example_out, tmp_path):
    r = CliRunner().invoke(cli, ["export", str(tmp_path / "nothing"), "--format", "turtle"])
    assert r.exit_code == 2 and "not a built graph folder" in r.stderr
    r = CliRunner().invoke(cli, ["export", str(example_out), "--format", "rdfxml"])
    assert r.exit_code == 2
