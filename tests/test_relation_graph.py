"""Relations between concepts: span → concept linking, the aggregated edges, their RDF form
(SHACL, vocabulary, incremental blocks), the Bolt push, ``kg relations`` and ``kg paper``."""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
from pathlib import Path

import pyoxigraph as ox
import pytest
import rdflib

from extractors.relation_links import FieldMentions, link_relations
from kg.core.layout import MANIFEST, MODEL, MODEL_DB
from kg.core.model import Concept, KnowledgeGraph, Mention, Paper, Relation
from kg.core.vocab import KGV, RELATION_NS, RELATION_PROPERTIES, concept_iri, relation_iri
from kg.stores.bolt import RELATIONSHIP_TYPES, counts, push
from kg.stores.model_index import write_model_index
from kg.stores.out import open_store, write_manifest, write_rdf
from queries import evaluations, methods_for, paper, relations
from tests.relation_data import made_relations, with_relations

SENTENCE = "We use graph neural networks (GNNs) for node classification on Cora."
GNN = SENTENCE.index("graph neural networks (GNNs)")
NC = SENTENCE.index("node classification")
CORA = SENTENCE.index("Cora")


def small_graph(relations: list[Relation]) -> KnowledgeGraph:
    concepts = {"gnn": Concept("gnn", "graph neural network", "method", ["GNN"]),
                "gcn": Concept("gcn", "graph convolutional network", "method",
                               broader=["gnn"]),
                "nc": Concept("nc", "node classification", "task"),
                "cora": Concept("cora", "Cora", "dataset")}
    mentions = [Mention("p", "gnn", "abstract", GNN, GNN + 28, "graph neural networks (GNNs)",
                        SENTENCE, "lexicon"),
                Mention("p", "nc", "abstract", NC, NC + 19, "node classification", SENTENCE,
                        "lexicon"),
                Mention("p", "cora", "abstract", CORA, CORA + 4, "Cora", SENTENCE, "lexicon")]
    kg = KnowledgeGraph(papers={"p": Paper("p", "GNNs", SENTENCE), "q": Paper("q", "T", "A")},
                        concepts=concepts, mentions=mentions)
    kg.relations = link_relations(relations, kg.mentions, kg.concepts)
    return kg


def rel(rtype: str, head: tuple[int, int], tail: tuple[int, int], paper: str = "p",
        sentence: str = SENTENCE) -> Relation:
    return Relation(paper, rtype, "abstract", *head, sentence[head[0]:head[1]], *tail,
                    sentence[tail[0]:tail[1]], sentence, "model", 0.9)


# -- linking spans to concepts ----------------------------------------------------------------

def test_a_span_gets_the_concept_of_the_mention_that_covers_it():
    ms = [Mention("p", "gnn", "abstract", 10, 38, "graph neural networks (GNNs)", "", "x"),
          Mention("p", "gnn-enc", "abstract", 40, 51, "GNN encoder", "", "x"),
          Mention("p", "enc", "abstract", 44, 51, "encoder", "", "x"),
          Mention("p", "nc", "abstract", 60, 79, "node classification", "", "x")]
    spans = FieldMentions(ms)
    assert spans.concept(10, 31) == "gnn"  # inside one mention
    assert spans.concept(44, 51) == "enc"  # the shortest mention containing it
    assert spans.concept(40, 51) == "gnn-enc"
    assert spans.concept(36, 52) == "gnn-enc"  # holds a mention: the longest one inside
    assert spans.concept(55, 65) == "nc"  # overlaps its end only
    assert spans.concept(30, 39) is None  # overlaps a mention, but not with its last word
    assert spans.concept(0, 9) is None and spans.concept(80, 90) is None
    assert FieldMentions([]).concept(0, 5) is None


def test_relations_link_to_concepts_or_stay_out_of_the_graph():
    kg = small_graph([
        rel("used-for", (GNN, GNN + 21), (NC, NC + 19)),  # "graph neural networks"
        rel("evaluate-for", (CORA, CORA + 4), (GNN + 23, GNN + 27)),  # Cora → "GNNs"
        rel("part-of", (NC, NC + 4), (NC + 5, NC + 19)),  # both inside one mention: same
        rel("conjunction", (0, 2), (NC, NC + 19)),  # "We" is no concept
    ])
    linked = {(r.type, r.head_concept, r.tail_concept) for r in kg.relations}
    assert linked == {("used-for", "gnn", "nc"), ("evaluate-for", "cora", "gnn"),
                      ("part-of", None, None), ("conjunction", None, None)}
    assert len(kg.relations) == 4  # unlinked ones stay as extraction output
    assert list(kg.relation_edges) == [("evaluate-for", "cora", "gnn"), ("used-for", "gnn", "nc")]


def test_linking_is_deterministic_whatever_the_input_order(example_kg):
    made = made_relations(example_kg)
    assert len(made) > 50
    reference = link_relations(made, example_kg.mentions, example_kg.concepts)
    rng = random.Random(14)
    for _ in range(3):
        shuffled, mentions = made[:], example_kg.mentions[:]
        rng.shuffle(shuffled)
        rng.shuffle(mentions)
        assert link_relations(shuffled, mentions, example_kg.concepts) == reference
    # a concept that is not kept (not in the graph) is no argument
    kept = {c: v for c, v in example_kg.concepts.items() if c != "graph-neural-network"}
    relinked = link_relations(made, example_kg.mentions, kept)
    assert all("graph-neural-network" not in (r.head_concept, r.tail_concept) for r in relinked)
    assert any("graph-neural-network" in (r.head_concept, r.tail_concept) for r in reference)


def test_edges_aggregate_statements_over_papers_and_symmetric_types_merge():
    other = "GNNs beat GCNs; Cora is used."
    kg = small_graph([rel("used-for", (GNN, GNN + 28), (NC, NC + 19)),
                      rel("compare", (NC, NC + 19), (GNN, GNN + 28)),
                      rel("compare", (GNN, GNN + 28), (NC, NC + 19))])
    # the same relation stated in a second paper (mentions added by hand)
    kg2 = KnowledgeGraph(
        papers={**kg.papers, "q": Paper("q", "T", other)}, concepts=kg.concepts,
        mentions=kg.mentions + [Mention("q", "gnn", "abstract", 0, 4, "GNNs", other, "x"),
                                Mention("q", "gcn", "abstract", 10, 14, "GCNs", other, "x")])
    q = Relation("q", "used-for", "abstract", 0, 4, "GNNs", 10, 14, "GCNs", other, "model")
    kg2.relations = link_relations([*kg.relations, q,
                                    rel("used-for", (GNN, GNN + 28), (NC, NC + 19))],
                                   kg2.mentions, kg2.concepts)
    edges = kg2.relation_edges
    assert set(edges) == {("used-for", "gnn", "nc"), ("compare", "gnn", "nc"),
                          ("used-for", "gnn", "gcn")}
    assert edges[("compare", "gnn", "nc")].count == 2  # both directions: one edge
    assert edges[("used-for", "gnn", "nc")].count == 2
    assert edges[("used-for", "gnn", "nc")].evidence == {"p": SENTENCE}
    assert edges[("used-for", "gnn", "gcn")].evidence == {"q": other}


# -- questions ---------------------------------------------------------------------------------

def test_relations_answer_what_x_is_used_for_and_what_is_used_for_x():
    kg = small_graph([rel("used-for", (GNN, GNN + 28), (NC, NC + 19)),
                      rel("evaluate-for", (CORA, CORA + 4), (GNN, GNN + 28)),
                      rel("compare", (NC, NC + 19), (CORA, CORA + 4))])
    out = relations(kg, "GNNs", direction="out")
    assert [(r["head"], r["relation"], r["tail"]) for r in out] == [
        ("graph neural network", "used-for", "node classification")]
    assert out[0]["paper_ids"] == ["p"] and out[0]["evidence"] == SENTENCE
    into = relations(kg, "node classification", direction="in")
    assert [(r["concept"], r["relation"], r["direction"]) for r in into] == [
        ("graph neural network", "used-for", "in"), ("Cora", "compare", "both")]
    assert [r["concept"] for r in methods_for(kg, "node classification")] == [
        "graph neural network"]
    assert [r["concept"] for r in evaluations(kg, "GNN")] == ["Cora"]
    assert relations(kg, "GNN", type="compare") == []
    assert [r["concept"] for r in relations(kg, "GNN", of_type="dataset")] == ["Cora"]
    # a narrower concept's relations count for the broader one unless exact
    assert relations(kg, "graph convolutional network") == []
    row = paper(kg, "p")["relations"]
    assert [(r["head"], r["relation"], r["tail"]) for r in row] == [
        ("graph neural network", "used-for", "node classification"),
        ("Cora", "compare", "node classification"),
        ("Cora", "evaluate-for", "graph neural network")]


def test_relations_refuse_unknown_types_and_directions():
    from kg.core.errors import NotFoundError, QueryError

    kg = small_graph([])
    with pytest.raises(QueryError, match="unknown relation type 'uses'"):
        relations(kg, "GNN", type="uses")
    with pytest.raises(QueryError, match="unknown direction"):
        relations(kg, "GNN", direction="up")
    with pytest.raises(NotFoundError, match="did you mean 'graph neural network'"):
        relations(kg, "graph neural netwrk")


# -- the stores -------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def relation_kg(example_kg) -> KnowledgeGraph:
    kg = with_relations(example_kg)
    assert len(kg.relation_edges) > 50
    return kg


def write_out(kg: KnowledgeGraph, out: Path, previous: Path | None = None) -> Path:
    out.mkdir(parents=True)
    write_rdf(kg, out, previous=previous)
    kg.save(out / MODEL)
    write_model_index(kg, out / MODEL_DB)
    write_manifest(out, {"kg_version": "test", "counts": {}})
    return out


@pytest.fixture(scope="module")
def relation_out(relation_kg, tmp_path_factory) -> Path:
    return write_out(relation_kg, tmp_path_factory.mktemp("relations") / "out")


def test_rdf_relation_nodes_reify_the_direct_triples(relation_kg, relation_out):
    store = open_store(relation_out)
    (rtype, head, tail), edge = next(iter(relation_kg.relation_edges.items()))
    node = ox.NamedNode(relation_iri(rtype, head, tail))
    h, t = ox.NamedNode(concept_iri(head)), ox.NamedNode(concept_iri(tail))
    prop = ox.NamedNode(RELATION_PROPERTIES[rtype])
    assert list(store.quads_for_pattern(h, prop, t))
    values = {(q.predicate.value, q.object.value)
              for q in store.quads_for_pattern(node, None, None)}
    rdf = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
    assert {(rdf + "subject", h.value), (rdf + "object", t.value), (rdf + "predicate", prop.value),
            (KGV + "relationType", rtype), (KGV + "statementCount", str(edge.count))} <= values
    n_nodes = len(list(store.quads_for_pattern(None, None, ox.NamedNode(KGV + "Relation"))))
    assert n_nodes == len(relation_kg.relation_edges)
    statements = list(store.quads_for_pattern(None, ox.NamedNode(KGV + "relation"), node))
    assert len(statements) == edge.count
    sentence = next(store.quads_for_pattern(statements[0].subject,
                                            ox.NamedNode(KGV + "statementSentence"), None))
    assert sentence.object.value in edge.evidence.values()


def test_relation_graph_conforms_to_the_shape_and_the_vocabulary(relation_out):
    from tests.test_sparql import _sparql_constraints_hold, _validate

    g = rdflib.Graph().parse(relation_out / "graph.ttl", format="turtle")
    conforms, text = _validate(g, sparql_constraints=False)
    assert conforms, text
    _sparql_constraints_hold(open_store(relation_out))
    vocab = rdflib.Graph().parse(Path(__file__).parents[1] / "kg" / "vocab.ttl")
    used = {str(x) for t in g for x in t if isinstance(x, rdflib.URIRef) and str(x).startswith(KGV)
            and str(x) != KGV}
    defined = {str(s) for s in vocab.subjects()}
    assert used - defined == set()
    # a statement whose relation lost a paper breaks the shape
    store = open_store(relation_out)
    q = next(q for q in store.quads_for_pattern(
        None, ox.NamedNode("http://www.w3.org/ns/prov#wasDerivedFrom"), None)
        if q.subject.value.startswith(RELATION_NS))
    broken = ox.Store()
    broken.bulk_extend(store.quads_for_pattern(None, None, None))
    broken.remove(q)
    with pytest.raises(AssertionError):
        _sparql_constraints_hold(broken)


def test_incremental_rdf_with_relations_is_byte_identical(relation_kg, relation_out, tmp_path):
    # one paper's relations change; the rest is reused from the previous build
    pid = sorted(relation_kg.relations_by_paper)[0]
    kept = [r for r in relation_kg.relations if r.paper != pid or r.type != "used-for"]
    changed = KnowledgeGraph(papers=relation_kg.papers, concepts=relation_kg.concepts,
                             mentions=relation_kg.mentions, relations=kept)
    assert changed.relation_edges != relation_kg.relation_edges
    incremental = write_out(changed, tmp_path / "incremental", previous=relation_out)
    full = write_out(changed, tmp_path / "full")
    assert (incremental / "graph.ttl").read_bytes() == (full / "graph.ttl").read_bytes()
    # and the store copied and patched holds the same triples as one loaded from scratch
    assert set(open_store(incremental).quads_for_pattern(None, None, None)) == \
        set(open_store(full).quads_for_pattern(None, None, None))


def test_old_graph_without_relations_gives_the_same_rdf_as_before(example_kg, tmp_path):
    # relations that link nothing add nothing: no relation node, no statement
    kg = KnowledgeGraph(papers=example_kg.papers, concepts=example_kg.concepts,
                        mentions=example_kg.mentions,
                        relations=[r for r in made_relations(example_kg)])  # not linked
    assert kg.relation_edges == {}
    bare = KnowledgeGraph(papers=example_kg.papers, concepts=example_kg.concepts,
                          mentions=example_kg.mentions)
    a = write_out(kg, tmp_path / "a")
    b = write_out(bare, tmp_path / "b")
    assert (a / "graph.ttl").read_bytes() == (b / "graph.ttl").read_bytes()


def relation_snapshot(g) -> list[dict]:
    return g.run(f"MATCH (h:Concept)-[r:{'|'.join(RELATIONSHIP_TYPES.values())}]->(t:Concept) "
                 "RETURN type(r) AS type, h.id AS h, t.id AS t, r.count AS n, "
                 "r.papers AS papers, r.evidence AS evidence ORDER BY type, h, t")


def test_push_writes_typed_relationships_idempotently(bolt, relation_kg):
    g = bolt.load(relation_kg)
    first = relation_snapshot(g)
    assert len(first) == len(relation_kg.relation_edges)
    edge = relation_kg.relation_edges[(first[0]["type"].lower().replace("_", "-"),
                                       first[0]["h"], first[0]["t"])]
    assert first[0]["papers"] == edge.papers
    assert first[0]["evidence"] == list(edge.evidence.values())
    before = counts(g)
    written = push(relation_kg, g, batch_size=5)
    assert written["relations"] == len(relation_kg.relation_edges)
    assert relation_snapshot(g) == first and counts(g) == before
    by_type = {t: 0 for t in RELATIONSHIP_TYPES.values()}
    for rtype, _, _ in relation_kg.relation_edges:
        by_type[RELATIONSHIP_TYPES[rtype]] += 1
    assert {k: before[k] for k in by_type} == by_type


# -- the command line -------------------------------------------------------------------------

def kg_cli(*args: object) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "kg", *map(str, args)], capture_output=True,
                          text=True, timeout=300)


def test_cli_relations_in_every_format(relation_kg, relation_out):
    concept = relation_kg.concepts["graph-neural-network"].label
    done = kg_cli("relations", relation_out, concept, "--format", "json")
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)
    assert rows == relations(relation_kg, concept)
    family = relation_kg.descendants("graph-neural-network")
    assert rows and all({r["head_id"], r["tail_id"]} & family for r in rows)
    assert any("graph-neural-network" in (r["head_id"], r["tail_id"]) for r in rows)
    into = kg_cli("relations", relation_out, concept, "--direction", "in", "--format", "csv",
                  "--engine", "python")
    assert into.returncode == 0, into.stderr
    lines = into.stdout.splitlines()
    assert lines[0] == "head,relation,tail,papers,paper_ids,evidence"
    expected = relations(relation_kg, concept, direction="in")
    assert len(lines) - 1 == len(expected)
    # --type keeps one of the types the concept has (which ones depends on the example's
    # mentions: made_relations takes the types in turn) and drops the others
    # (a type in the table's relation column: three spaces either side, unlike evidence)
    types = sorted({r["relation"] for r in rows})
    assert len(types) >= 2, types
    kept, *dropped = types
    table = kg_cli("relations", relation_out, concept, "--type", kept, "--width", "200")
    assert table.returncode == 0 and f"   {kept}   " in table.stdout
    assert not any(f"   {t}   " in table.stdout for t in dropped)
    bad = kg_cli("relations", relation_out, "no such concept at all")
    assert bad.returncode == 2 and bad.stderr.startswith("kg: error: no concept matches")
    assert len(bad.stderr.splitlines()) == 1
    wrong = kg_cli("relations", relation_out, concept, "--type", "uses")
    assert wrong.returncode == 2 and "'uses' is not one of" in wrong.stderr


def test_cli_paper_shows_the_relations_it_states(relation_kg, relation_out):
    pid = sorted(relation_kg.relations_by_paper)[0]
    done = kg_cli("paper", relation_out, pid, "--width", "200")
    assert done.returncode == 0, done.stderr
    assert "relations the paper states:" in done.stdout
    r = paper(relation_kg, pid)["relations"][0]
    assert f"{r['head']}" in done.stdout and r["relation"] in done.stdout
    js = json.loads(kg_cli("paper", relation_out, pid, "--format", "json").stdout)
    assert js["relations"] == paper(relation_kg, pid)["relations"]


def test_manifest_counts_relation_edges(tmp_path):
    from kg.build import build

    result = build(["examples/neurips2026-abstracts.txt"], tmp_path / "out", page=False)
    counted = json.loads((tmp_path / "out" / MANIFEST).read_text())["counts"]
    assert counted["relations"] == len(result.graph.relation_edges)


# -- pages ------------------------------------------------------------------------------------

def test_concept_map_and_focus_draw_typed_directed_relation_edges(relation_kg):
    from visualizations.page import render
    from visualizations.views import make_view

    view = make_view(relation_kg, "concepts")
    shown = {n["id"][8:] for n in view.net.nodes}
    drawn = [e for e in view.net.edges if e["kind"].startswith("relation-")]
    expected = [k for k in relation_kg.relation_edges if k[1] in shown and k[2] in shown]
    assert len(drawn) == len(expected) > 0
    for e in drawn:
        assert e["kind"] == f"relation-{e['relation']}"
        assert e["arrows"] == ("" if e["relation"] in ("compare", "conjunction") else "to")
        head, tail = e["from"][8:], e["to"][8:]
        edge = relation_kg.relation_edges[(e["relation"], head, tail)]
        assert edge.evidence[min(edge.evidence)][:60] in e["title"]
    html = render(view)
    data = json.loads(re.search(r'<script id="kg-data" type="application/json">(.*?)</script>',
                                html, re.S).group(1))
    kinds = {k["key"] for k in data["edgeKinds"]}
    assert {e["kind"] for e in drawn} <= kinds  # each type drawn is in the legend
    focus = make_view(relation_kg, "focus", text="graph neural network")
    focus_drawn = {(e["relation"], e["from"], e["to"]) for e in focus.net.edges
                   if e["kind"].startswith("relation-")}
    gnn_family = {f"concept:{c}" for c in relation_kg.descendants("graph-neural-network")}
    assert focus_drawn and any(f in gnn_family or t in gnn_family for _, f, t in focus_drawn)


def test_relation_tooltips_are_escaped():
    from visualizations.page import render
    from visualizations.views import make_view

    hostile = '</script><img src=x onerror="window.kgPwned=1"> uses GNN'
    kg = KnowledgeGraph(
        papers={"p": Paper("p", "<b>T</b>", hostile)},
        concepts={"gnn": Concept("gnn", "graph neural network", "method"),
                  "evil": Concept("evil", "</script><b>evil", "concept")},
        mentions=[Mention("p", "evil", "abstract", 0, 9, "</script>", hostile, "x"),
                  Mention("p", "gnn", "abstract", len(hostile) - 3, len(hostile), "GNN",
                          hostile, "x")])
    kg.relations = link_relations(
        [Relation("p", "used-for", "abstract", 0, 9, "</script>", len(hostile) - 3,
                  len(hostile), "GNN", hostile, "model")], kg.mentions, kg.concepts)
    view = make_view(kg, "concepts")
    assert any(e["kind"] == "relation-used-for" for e in view.net.edges)
    html = render(view)
    assert html.count("</script>") == 3 and "<img src=x" not in html and "<b>evil" not in html
