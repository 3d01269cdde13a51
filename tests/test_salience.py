"""Salience (issue 13 item 3): what a paper is *about* and what it merely mentions, stored in
the model, RDF and Bolt, and preferred by papers, related papers, bridges and pages."""

from __future__ import annotations

import json

import pyoxigraph as ox
import pytest

from kg.core.model import Concept, KnowledgeGraph, Mention, Paper
from kg.core.salience import ABOUT_TOP, score_salience
from kg.core.vocab import KGV, concept_iri, paper_iri
from kg.stores.bolt import mention_rows
from kg.stores.graph import to_networkx
from kg.stores.rdf import triples
from queries import ENGINES, QUESTIONS
from queries.bridging import bridges
from queries.python import PythonEngine
from queries.questions import paper, papers_for_concept, related_papers
from visualizations.networks import paper_concept_network


def _m(p: str, c: str, field: str = "abstract", start: int = 0) -> Mention:
    return Mention(p, c, field, start, start + 1, c, f"{p} and {c}.", "lexicon")


def _graph() -> KnowledgeGraph:
    """"gnn" is what "a" is about (title, three mentions, early); "nn" is everywhere."""
    long = "x" * 400
    papers = {
        "a": Paper("a", "GNNs for molecules", long, keywords=["dropout"]),
        "b": Paper("b", "Dropout in GNNs", long),
        "c": Paper("c", "Neural networks", long),
        "d": Paper("d", "Something else", long),
    }
    concepts = {c: Concept(c, c) for c in ("gnn", "nn", "dropout", "molecule")}
    mentions = [
        _m("a", "gnn", "title"), _m("a", "gnn", start=5), _m("a", "gnn", start=50),
        _m("a", "molecule", "title", 9), _m("a", "nn", start=390), _m("a", "dropout", start=395),
        _m("b", "dropout", "title"), _m("b", "gnn", "title", 11), _m("b", "nn", start=380),
        _m("c", "nn", "title"), _m("d", "nn", start=200),
    ]
    return KnowledgeGraph(papers=papers, concepts=concepts, mentions=mentions)


def test_the_title_frequent_early_rare_concept_is_what_a_paper_is_about():
    kg = _graph()
    s = kg.salience
    assert s[("a", "gnn")].about and s[("a", "molecule")].about
    # in every paper, once, at the end of the abstract: merely mentioned
    assert not s[("a", "nn")].about and s[("a", "nn")].score < s[("a", "gnn")].score
    # a declared keyword is always what the paper is about, however weak
    assert s[("a", "dropout")].about
    assert min(s[("a", "gnn")].score, s[("a", "molecule")].score) > s[("a", "dropout")].score \
        > s[("a", "nn")].score
    assert all(0 <= x.score <= 1 for x in s.values())


def test_at_most_the_top_concepts_are_about_without_keywords():
    papers = {"p": Paper("p", " ".join(f"c{i}" for i in range(9)), "x" * 100),
              "q": Paper("q", "other", "y")}
    concepts = {f"c{i}": Concept(f"c{i}", f"c{i}") for i in range(9)}
    mentions = [_m("p", f"c{i}", "title", i) for i in range(9)] + [_m("q", "c0")]
    about = [s for s in score_salience(papers, concepts, mentions) if s.about]
    assert len(about) == ABOUT_TOP
    assert "c0" not in {s.concept for s in about}  # in two papers: less specific


def test_salience_is_stored_in_model_json_and_read_back(tmp_path):
    kg = _graph()
    kg.save(tmp_path / "model.json")
    data = json.loads((tmp_path / "model.json").read_text())
    assert {"paper": "a", "concept": "gnn", "score": kg.salience[("a", "gnn")].score,
            "about": True} in data["salience"]
    back = KnowledgeGraph.load(tmp_path / "model.json")
    assert back.salience == kg.salience
    back.save(tmp_path / "again.json")
    assert (tmp_path / "again.json").read_bytes() == (tmp_path / "model.json").read_bytes()


def test_rdf_has_the_salience_of_every_link_and_the_about_links():
    kg = _graph()
    store = ox.Store()
    store.extend(ox.Quad(t.subject, t.predicate, t.object) for t in triples(kg))
    about = {(q.subject.value, q.object.value)
             for q in store.quads_for_pattern(None, ox.NamedNode(KGV + "about"), None)}
    assert (paper_iri("a"), concept_iri("gnn")) in about
    assert (paper_iri("a"), concept_iri("nn")) not in about
    scores = list(store.quads_for_pattern(None, ox.NamedNode(KGV + "salience"), None))
    assert len(scores) == len(kg.salience)


def test_bolt_rows_and_networkx_edges_carry_salience():
    kg = _graph()
    rows = {(r["paper"], r["concept"]): r for r in mention_rows(kg)}
    assert rows[("a", "gnn")]["about"] and not rows[("a", "nn")]["about"]
    assert rows[("a", "gnn")]["salience"] == kg.salience[("a", "gnn")].score
    g = to_networkx(kg, links=False)
    assert g.edges["paper:a", "concept:gnn"]["about"] is True


def test_kg_paper_shows_the_score_about_concepts_first():
    rows = paper(_graph(), "a")["concepts"]
    assert [r["id"] for r in rows if r["about"]] == ["molecule", "gnn", "dropout"]
    assert [r["salience"] for r in rows] == sorted((r["salience"] for r in rows), reverse=True)
    assert rows[-1]["id"] == "nn" and not rows[-1]["about"]
    assert all("salience" in r for r in rows)


def test_papers_about_a_concept_come_before_those_that_mention_it():
    rows = papers_for_concept(_graph(), "nn")
    assert [(r["id"], r["about"]) for r in rows][0] == ("c", True)
    assert {r["id"] for r in rows if not r["about"]} == {"a", "b", "d"}


def test_related_papers_weigh_about_links_more():
    kg = _graph()
    # b shares gnn (about for both) and dropout (a's keyword, b's title) with a
    scores = {r["id"]: r["score"] for r in related_papers(kg, "a")}
    all_equal = KnowledgeGraph(papers=kg.papers, concepts=kg.concepts, mentions=kg.mentions)
    all_equal.__dict__["salience"] = {k: s.__class__(s.paper, s.concept, s.score, False)
                                      for k, s in kg.salience.items()}
    weaker = {r["id"]: r["score"] for r in related_papers(all_equal, "a")}
    assert scores["b"] == pytest.approx(weaker["b"] * 4, abs=1e-5)  # both rounded


def test_bridges_count_about_links_unless_all_mentions():
    kg = _graph()
    # a and b mention nn only in passing: no bridge between gnn and nn by default
    assert [r["id"] for r in bridges(kg, "gnn", "nn")["bridges"]] == []
    assert {r["id"] for r in bridges(kg, "gnn", "nn", all_mentions=True)["bridges"]} \
        == {"a", "b"}


def test_pages_draw_mentions_dashed_and_about_links_solid():
    net = paper_concept_network(_graph(), shares=False)
    edges = {(e["from"], e["to"]): e for e in net.edges}
    assert edges[("paper:a", "concept:gnn")]["dashes"] is False
    assert edges[("paper:a", "concept:nn")]["dashes"] is True


@pytest.mark.parametrize("helper", ["paper", "papers_for_concept", "bridges"])
def test_the_engines_agree_on_salience(helper, bolt, example_kg, example_out):
    from kg.stores.out import open_store

    sources = {"python": example_kg, "sparql": open_store(example_out),
               "cypher": bolt.load(example_kg)}
    engines = {n: e.load()(sources[n]) for n, e in ENGINES.items()}
    engines["python-out"] = PythonEngine.from_out(example_out)  # model.sqlite, read by key
    pid = sorted(example_kg.papers)[3]
    args = {"paper": (pid,), "papers_for_concept": ("graph neural network",),
            "bridges": ("graph neural network", "large language model")}[helper]
    fn = bridges if helper == "bridges" else QUESTIONS[helper]
    results = {n: fn(e, *args) for n, e in engines.items()}
    assert all(r == results["python"] for r in results.values()), helper
    sal = {n: e.salience(paper_ids=[pid]) for n, e in engines.items()}
    assert all(x == sal["python"] for x in sal.values()) and sal["python"]
    related = {n: related_papers(e, pid) for n, e in engines.items()}
    assert all(x == related["python"] for x in related.values())


def test_salience_a_paper_at_a_time_equals_the_whole_models():
    # a build's model: mentions grouped by paper, papers in id order
    kg = _graph()
    whole = kg.salience
    fresh = _graph()
    rows = list(fresh.salience_rows())
    assert "salience" not in fresh.__dict__  # made a paper at a time, not kept
    assert rows == [whole[k] for k in sorted(whole)]
    assert fresh.n_salience() == len(whole)
    # some papers' pairs alone, scored against the whole corpus's document frequencies
    assert fresh.salience_of({"b", "d"}) == {k: s for k, s in whole.items() if k[0] in "bd"}
    assert "salience" not in fresh.__dict__
    assert kg.salience_of({"a"}) == {k: s for k, s in whole.items() if k[0] == "a"}
    # mentions in another order: the whole table, sorted, as before
    shuffled = KnowledgeGraph(papers=kg.papers, concepts=kg.concepts,
                              mentions=list(reversed(kg.mentions)))
    assert list(shuffled.salience_rows()) == [whole[k] for k in sorted(whole)]


def test_a_page_of_a_few_papers_does_not_score_every_pair():
    kg = _graph()
    net = paper_concept_network(kg, max_nodes=4)  # papers a and b, concepts gnn and dropout
    assert "salience" not in kg.__dict__ and "first_evidence" not in kg.__dict__
    reference = _graph()
    reference.salience  # noqa: B018 (made whole first: the page reads it)
    reference.first_evidence  # noqa: B018
    assert net.edges == paper_concept_network(reference, max_nodes=4).edges
