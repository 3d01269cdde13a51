"""Pages without a browser: what goes into them, escaping, thresholds, the CLI."""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner

from kg.cli import cli
from kg.core.errors import NotFoundError
from kg.core.model import Concept, KnowledgeGraph, Mention, Paper
from tests.conftest import paper_id
from visualizations.concept_map import concept_map_network
from visualizations.focus import focus_network, resolve_focus
from visualizations.layout import positions
from visualizations.networks import paper_concept_network
from visualizations.page import View, render
from visualizations.views import make_view

HOSTILE = '</script><img src=x onerror="window.kgPwned=1"> "quotes" \'single\' & ünï 漢字'


def hostile_kg() -> KnowledgeGraph:
    def m(p: str, c: str) -> Mention:
        return Mention(p, c, "abstract", 0, 3, "GNN", HOSTILE, "lexicon")

    return KnowledgeGraph(
        papers={"p1": Paper("p1", HOSTILE, HOSTILE + " abstract", venue="<b>V</b>", year=2018),
                "p2": Paper("p2", "Plain title", "GNN abstract.")},
        concepts={"gnn": Concept("gnn", "graph neural network", "method", aliases=["GNN"]),
                  "evil": Concept("evil", "</script><b>evil", "concept")},
        mentions=[m("p1", "gnn"), m("p2", "gnn"), m("p1", "evil")],
    )


def test_hostile_text_cannot_close_the_script_or_add_markup():
    html = render(make_view(hostile_kg(), "graph"))
    assert html.count("</script>") == 3  # data, vis-network, the page's own script
    assert "<img src=x" not in html and "<b>V</b>" not in html and "<b>evil" not in html
    data = re.search(r'<script id="kg-data" type="application/json">(.*?)</script>', html, re.S)
    assert "\\u003c/script\\u003e" in data.group(1)


def test_page_is_self_contained():
    html = render(make_view(hostile_kg(), "graph"))
    assert not re.search(r"<(script|link|img)[^>]+(src|href)=[\"']?(https?:)?//", html)
    assert "vis.Network" in html and "kgFind" in html


def test_graph_view_shows_every_mentioned_concept_of_the_example(example_kg):
    net = paper_concept_network(example_kg)
    kinds = [n["kind"] for n in net.nodes]
    assert kinds.count("paper") == len(example_kg.paper_concepts)
    assert kinds.count("concept") == len(example_kg.concept_papers)
    mentions = [e for e in net.edges if e["kind"] == "mentions"]
    assert len(mentions) == sum(len(c) for c in example_kg.paper_concepts.values())
    shares = {(e["from"], e["to"]) for e in net.edges if e["kind"] == "shares"}
    # papers 12 and 16 both build on reinforcement learning
    pair = tuple(sorted([f"paper:{paper_id(12)}", f"paper:{paper_id(16)}"]))
    assert pair in shares
    rl = next(n for n in net.nodes if n["label"] == "reinforcement learning")
    assert rl["degree"] == 3 and rl["font"]["size"] > 14  # shared concepts stand out


def test_mention_edges_carry_the_evidence_sentence(example_kg):
    net = paper_concept_network(example_kg)
    edge = next(e for e in net.edges if e["to"] == "concept:" + next(
        c for c, x in example_kg.concepts.items() if x.label == "MinHash"))
    assert "MinHash" in edge["title"] and "“" in edge["note"]


@pytest.mark.parametrize("max_nodes", [5, 40])
def test_max_nodes_caps_the_graph_and_leaves_no_orphan_concept(example_kg, max_nodes):
    net = paper_concept_network(example_kg, max_nodes=max_nodes)
    assert 0 < len(net.nodes) <= max_nodes
    linked = {e["to"] for e in net.edges} | {e["from"] for e in net.edges}
    assert all(n["id"] in linked for n in net.nodes)


def test_min_papers_keeps_only_shared_concepts(example_kg):
    net = paper_concept_network(example_kg, min_papers=2)
    concepts = [n for n in net.nodes if n["kind"] == "concept"]
    assert concepts and all(len(example_kg.concept_papers[n["id"][8:]]) >= 2 for n in concepts)


def test_concept_map_clusters_are_deterministic_and_cover_every_concept(example_kg):
    net, legend = concept_map_network(example_kg)
    again, legend2 = concept_map_network(example_kg)
    assert legend == legend2 and net.nodes == again.nodes
    keys = {e["key"] for e in legend}
    assert all(n["group"] in keys for n in net.nodes)
    assert sum(e["members"] for e in legend) == len(net.nodes) == len(example_kg.concept_papers)
    by_label = {n["label"]: n["group"] for n in net.nodes}
    # concepts of the same abstract travel together
    assert by_label["MinHash"] == by_label["CMinHash"]
    # co-occurrence links, and the relations papers state between two of the concepts
    assert all(e["kind"] == "cooccurs" and e["value"] >= 1 for e in net.edges
               if not e["kind"].startswith("relation-"))
    relations = {(e["relation"], e["from"][8:], e["to"][8:]) for e in net.edges
                 if e["kind"].startswith("relation-")}
    assert relations == set(example_kg.relation_edges)


def test_focus_on_a_concept_includes_narrower_concepts_and_their_papers(example_kg):
    focus = resolve_focus(example_kg, "GNNs")
    assert focus.kind == "concept" and len(focus.start) > 1  # narrower concepts stand with it
    net, _ = focus_network(example_kg, "GNNs", depth=1)
    papers = {n["id"] for n in net.nodes if n["kind"] == "paper"}
    assert f"paper:{paper_id(3)}" in papers
    assert all(n["level"] <= 1 for n in net.nodes)
    deeper, _ = focus_network(example_kg, "GNNs", depth=2)
    assert len(deeper.nodes) > len(net.nodes)


def test_focus_on_a_paper_and_caps(example_kg):
    net, focus = focus_network(example_kg, paper_id(11), depth=1)
    assert focus.kind == "paper"
    assert len(net.nodes) == 1 + len(example_kg.paper_concepts[paper_id(11)])
    capped, _ = focus_network(example_kg, paper_id(11), depth=3, max_nodes=4)
    assert len(capped.nodes) == 4


def test_focus_on_unknown_text_suggests_concepts(example_kg):
    with pytest.raises(NotFoundError, match="did you mean 'graph neural network'"):
        resolve_focus(example_kg, "graph neurall netwrk")


def test_bridge_view_puts_the_topics_left_and_right_of_their_papers(example_kg):
    view = make_view(example_kg, "bridge", topic_a="RL", topic_b="LLMs")  # paper 17 is about both
    groups = {n["group"] for n in view.net.nodes}
    assert groups == {"a", "b", "bridge"}
    xs = {n["group"]: n["x"] for n in view.net.nodes}
    assert xs["a"] < xs["bridge"] < xs["b"]


def test_layout_of_a_large_graph_is_deterministic_and_finite():
    nodes = [{"id": f"c{i}"} for i in range(60)] + [
        {"id": f"p{i}", "kind": "paper"} for i in range(500)]
    edges = [{"from": f"p{i}", "to": f"c{(i * 7 + k) % 60}"} for i in range(500) for k in (0, 1)]
    a, b = positions(nodes, edges), positions(nodes, edges)
    assert a == b and len(a) == 560
    assert all(abs(x) < 1e5 and abs(y) < 1e5 for x, y in a.values())
    assert len({(round(x), round(y)) for x, y in a.values()}) > 500  # papers do not pile up


def test_big_pages_get_fixed_positions_and_no_physics(example_kg):
    view = make_view(example_kg, "graph")
    html = render(view)
    assert '"fixed": false' in html
    nodes = [{"id": f"n{i}", "label": str(i)} for i in range(450)]
    big = View(paper_concept_network(KnowledgeGraph()), title="big")
    big.net.nodes, big.net.edges = nodes, []
    html = render(big)
    assert '"fixed": true' in html and all("x" in n for n in nodes)


def test_cli_viz_writes_each_view(example_out, tmp_path):
    runner = CliRunner()
    for args in (["--view", "graph"], ["--view", "concepts", "--min-papers", "2"],
                 ["--focus", "diffusion models", "--depth", "1"],
                 ["--bridge", "GNNs", "large language models"]):
        target = tmp_path / "page.html"
        result = runner.invoke(cli, ["viz", str(example_out), *args, "-o", str(target)])
        assert result.exit_code == 0, result.output
        assert target.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
        assert "nodes" in result.output


@pytest.mark.parametrize("args, message", [
    (["--view", "focus"], "--view focus needs --focus TEXT"),
    (["--view", "bridge"], "--view bridge needs --bridge A B"),
    (["--focus", "no such thing at all"], "no concept matches 'no such thing at all'"),
])
def test_cli_viz_errors_are_one_line(example_out, tmp_path, args, message):
    result = CliRunner().invoke(cli, ["viz", str(example_out), *args, "-o",
                                      str(tmp_path / "x.html")])
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [f"kg: error: {message}"] or \
        result.output.startswith(f"kg: error: {message}")
    assert not (tmp_path / "x.html").exists()
