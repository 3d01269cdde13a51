"""The SPARQL engine: answers a careful reader expects, the same rows as the Python
reference (example corpus and NeurIPS 2018), the SHACL shape, and the CLI commands."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pyoxigraph as ox
import pytest
import rdflib
from click.testing import CliRunner

import queries
from kg.cli import cli
from kg.core.errors import NotFoundError
from kg.stores.out import load_model, open_store
from tests.conftest import paper_id

SHAPE = Path(__file__).resolve().parent.parent / "kg" / "shapes" / "graph-shape.ttl"


@pytest.fixture(scope="module")
def store(example_out):
    return open_store(example_out)


def ids(rows):
    return [r["id"] for r in rows]


# -- answers that come from reading the abstracts ---------------------------------------------

def test_papers_for_gnns_include_the_narrower_graph_convolution(store):
    rows = queries.papers_for_concept(store, "GNNs")
    # 3: GNN calibration (GNN in almost every sentence); 14: SHiFT's GNN encoder;
    # 18: a deep weighted fuzzy graph convolutional network (narrower than GNN)
    assert ids(rows)[0] == paper_id(3)
    assert set(ids(rows)) == {paper_id(n) for n in (3, 14, 18)}
    exact = queries.papers_for_concept(store, "graph neural network", narrower=False)
    assert set(ids(exact)) == {paper_id(3), paper_id(14)}
    first = rows[0]
    assert first["evidence"].startswith("Graph Neural Networks (GNNs) have demonstrated")
    assert first["concepts"] == ["graph neural network"]


def test_paper_lists_its_concepts_with_evidence(store):
    p = queries.paper(store, paper_id(11))
    assert p["title"].startswith("CMinHash")
    labels = [c["label"] for c in p["concepts"]]
    assert labels[0] == "MinHash"
    assert {"MinHash", "CMinHash"} <= set(labels)
    minhash = p["concepts"][0]
    assert all("MinHash" in s for s in minhash["evidence"])
    assert len(set(minhash["evidence"])) == len(minhash["evidence"])


def test_related_papers_of_gnn_calibration_is_shift(store):
    rows = queries.related_papers(store, paper_id(3))
    # both use graph neural networks; no other abstract shares a concept with paper 3
    assert ids(rows)[0] == paper_id(14)
    assert "graph neural network" in rows[0]["shared"]
    assert rows[0]["score"] > 0
    assert [r["score"] for r in rows] == sorted((r["score"] for r in rows), reverse=True)


def test_related_papers_limit_and_order(store):
    rows = queries.related_papers(store, paper_id(14), limit=2)
    assert len(rows) <= 2
    full = queries.related_papers(store, paper_id(14), limit=100)
    assert rows == full[:2]
    keys = [(-r["score"], r["id"]) for r in full]
    assert keys == sorted(keys)
    assert all(round(r["score"], 6) == r["score"] and r["score"] > 0 for r in full)


def test_cooccurring_with_gnns(store):
    # every concept of the three GNN papers: with corpus-adaptive terms they have more than
    # the default 20, and those in one paper rank by id
    rows = queries.cooccurring(store, "graph neural networks", limit=100)
    labels = {r["label"] for r in rows}
    # paper 3 is about calibration of GNNs, 14 couples GNNs with LLMs, 18 is graph
    # contrastive learning (representation learning in 14 and 18)
    assert {"calibration", "large language model", "representation learning"} <= labels
    assert "graph neural network" not in labels  # the anchor
    assert "deep weighted fuzzy graph convolutional neural network" not in labels  # narrower
    top = rows[0]
    assert top["label"] == "representation learning" and top["papers"] == 2
    assert top["paper_ids"] == [paper_id(14), paper_id(18)]
    calibration = next(r for r in rows if r["label"] == "calibration")
    assert calibration["paper_ids"] == [paper_id(3)]
    assert len(queries.cooccurring(store, "GNN", limit=3)) == 3


def test_concept_path_from_calibration_to_llms(store):
    rows = queries.concept_path(store, "calibration", "LLMs")
    # calibration (3) -> graph neural network -> (14, SHiFT) -> large language model
    assert [(r["from_label"], r["paper"], r["to_label"]) for r in rows] == [
        ("calibration", paper_id(3), "graph neural network"),
        ("graph neural network", paper_id(14), "large language model"),
    ]
    assert all(r["evidence_from"] and r["evidence_to"] for r in rows)
    assert any("LLMs" in s for s in rows[1]["evidence_to"])
    assert queries.concept_path(store, "GNN", "graph neural networks") == []


def test_concept_path_between_unrelated_concepts_is_a_clear_no_path(store):
    # the MinHash abstract (11) shares no concept with the differential-privacy one (6)
    # (one-word domain concepts such as "variance" now link it to the GNN abstracts)
    with pytest.raises(NotFoundError, match="no path links 'MinHash' and 'differential privacy'"):
        queries.concept_path(store, "MinHash", "differential privacy")


def test_stats(store, example_kg):
    st = queries.stats(store)
    assert st["papers"] == 19
    assert st["concepts"] == len(example_kg.concepts)
    assert st["mentions"] == len(example_kg.mentions)
    assert sum(st["by_type"].values()) == st["concepts"]
    assert set(st["by_type"]) <= {"method", "task", "dataset", "metric", "concept"}
    top = st["top_concepts"]
    assert len(top) == 10
    assert [(-t["papers"], t["id"]) for t in top] == sorted((-t["papers"], t["id"]) for t in top)
    # reinforcement learning: deep RL (12), RL from limited feedback (16), RL for MLLMs (17)
    # three concepts in 3 papers each, ties by id ("estimator", "reinforcement-learning", ...)
    assert top[0]["papers"] == 3 and "reinforcement learning" in [t["label"] for t in top[:3]]


def test_unknown_names_are_one_line_errors(store):
    with pytest.raises(NotFoundError, match="no concept matches 'difusion model'; did you mean"):
        queries.cooccurring(store, "difusion model")
    with pytest.raises(NotFoundError, match="no paper with id 'neurips2026-abstracts-99'"):
        queries.paper(store, "neurips2026-abstracts-99")


# -- same rows as the Python reference -------------------------------------------------------

def _compare(kg, src, concepts, papers, pairs):
    for text in concepts:
        for narrower in (True, False):
            assert queries.papers_for_concept(src, text, narrower=narrower) == \
                queries.papers_for_concept(kg, text, narrower=narrower), text
        assert queries.cooccurring(src, text) == queries.cooccurring(kg, text), text
    for pid in papers:
        assert queries.paper(src, pid) == queries.paper(kg, pid), pid
        assert queries.related_papers(src, pid) == queries.related_papers(kg, pid), pid
    for a, b in pairs:
        try:
            expected = queries.concept_path(kg, a, b)
        except NotFoundError as e:
            with pytest.raises(NotFoundError, match="no path"):
                queries.concept_path(src, a, b)
            assert "no path" in str(e)
        else:
            assert queries.concept_path(src, a, b) == expected, (a, b)
    assert queries.stats(src) == queries.stats(kg)


def test_engines_agree_on_the_example(example_out, example_kg, store):
    concepts = sorted(c.label for c in example_kg.concepts.values())[::4]
    papers = sorted(example_kg.papers)
    labels = sorted(c.label for c in example_kg.concepts.values()
                    if example_kg.concept_papers.get(c.id))
    pairs = [(a, b) for a in labels[::7] for b in labels[3::11]]
    _compare(example_kg, store, concepts, papers, pairs)


def test_a_source_no_engine_answers_from_is_refused_clearly(example_out):
    # the questions take an engine's own sources (or OUT); an rdflib graph is not one
    g = rdflib.Graph().parse(example_out / "graph.ttl", format="turtle")
    with pytest.raises(TypeError, match="no engine answers from a Graph"):
        queries.stats(g)


def test_engines_agree_on_neurips2018(neurips2018_out):
    kg = load_model(neurips2018_out)
    src = open_store(neurips2018_out)
    rng = random.Random(2018)
    used = sorted(c for c in kg.concept_papers)
    by_df = sorted(used, key=lambda c: -len(kg.concept_papers[c]))
    concepts = [kg.concepts[c].label for c in by_df[:5] + rng.sample(used, 15)]
    papers = rng.sample(sorted(kg.papers), 25)
    pairs = [(rng.choice(used), rng.choice(used)) for _ in range(10)]
    _compare(kg, src, concepts, papers, pairs)


# -- the RDF graph satisfies its SHACL shape ---------------------------------------------------

SH = rdflib.Namespace("http://www.w3.org/ns/shacl#")


def _validate(graph: rdflib.Graph, *, sparql_constraints: bool = True):
    from pyshacl import validate

    shapes = rdflib.Graph().parse(SHAPE, format="turtle")
    if not sparql_constraints:
        shapes.remove((None, SH.sparql, None))
    conforms, _, text = validate(graph, shacl_graph=shapes)
    return conforms, text


def _sparql_constraints_hold(store: ox.Store) -> None:
    """The shape's SPARQL constraints, run by Oxigraph for all focus nodes at once."""
    from kg.core.vocab import sparql_prefixes

    shapes = rdflib.Graph().parse(SHAPE, format="turtle")
    selects = [str(q) for q in shapes.objects(None, SH.select)]
    assert selects
    for q in selects:
        rows = list(store.query(sparql_prefixes() + q.replace("$this", "?this")))
        assert rows == [], rows[:5]


def test_example_graph_conforms_to_the_shape(example_out):
    conforms, text = _validate(rdflib.Graph().parse(example_out / "graph.ttl", format="turtle"))
    assert conforms, text
    _sparql_constraints_hold(open_store(example_out))


def test_neurips2018_graph_conforms_to_the_shape(neurips2018_out):
    # pyshacl runs a SPARQL constraint once per focus node in rdflib's engine (~20 s here),
    # so the core shapes go through pyshacl and the SPARQL constraints through Oxigraph
    g = rdflib.Graph().parse(neurips2018_out / "graph.ttl", format="turtle")
    conforms, text = _validate(g, sparql_constraints=False)
    assert conforms, text
    _sparql_constraints_hold(open_store(neurips2018_out))


def test_sparql_constraints_catch_a_subject_without_mention():
    store = ox.Store()
    paper = ox.NamedNode("https://w3id.org/kg-abstracts/paper/x")
    store.add(ox.Quad(paper, ox.NamedNode("http://purl.org/dc/terms/subject"),
                      ox.NamedNode("https://w3id.org/kg-abstracts/concept/y")))
    with pytest.raises(AssertionError):
        _sparql_constraints_hold(store)


def test_the_shape_catches_broken_graphs(example_out):
    g = rdflib.Graph().parse(example_out / "graph.ttl", format="turtle")
    dcterms = rdflib.Namespace("http://purl.org/dc/terms/")
    kgv = rdflib.Namespace("https://w3id.org/kg-abstracts/vocab#")
    paper = rdflib.URIRef("https://w3id.org/kg-abstracts/paper/" + paper_id(11))
    concept = rdflib.URIRef("https://w3id.org/kg-abstracts/concept/graph-neural-network")
    mention = rdflib.URIRef(f"https://w3id.org/kg-abstracts/paper/{paper_id(11)}/mention/1")
    dataset = rdflib.URIRef("https://w3id.org/kg-abstracts/dataset")
    oa = rdflib.Namespace("http://www.w3.org/ns/oa#")
    prov = rdflib.Namespace("http://www.w3.org/ns/prov#")
    void = rdflib.Namespace("http://rdfs.org/ns/void#")
    assert (mention, oa.hasBody, None) in g and (dataset, void.classPartition, None) in g
    broken = [
        lambda g: g.remove((paper, dcterms.title, None)),
        lambda g: g.add((paper, dcterms.subject, concept)),  # a subject without a mention
        lambda g: g.set((concept, kgv.conceptType, rdflib.Literal("gadget"))),
        lambda g: g.set((concept, kgv.idf, rdflib.Literal("high"))),
        # the Web Annotation form must say what the kgv: form says
        lambda g: g.set((mention, oa.hasBody, concept)),
        lambda g: g.remove((mention, prov.wasAttributedTo, None)),
        lambda g: g.remove((dataset, void.classPartition, None)),
    ]
    for damage in broken:
        copy = rdflib.Graph()
        for t in g:
            copy.add(t)
        damage(copy)
        # pyshacl runs the SPARQL constraints once per focus node (~12 s a run here), so the
        # core shapes go through pyshacl and the SPARQL constraints through Oxigraph, as for
        # NeurIPS 2018 above; the damage must be caught by one of them
        conforms, _ = _validate(copy, sparql_constraints=False)
        if conforms:
            store = ox.Store()
            store.load(copy.serialize(format="nt"), format=ox.RdfFormat.N_TRIPLES)
            with pytest.raises(AssertionError):
                _sparql_constraints_hold(store)


def test_pyshacl_runs_the_shapes_sparql_constraints(example_out):
    # the shape file is for users' own validators too: pyshacl alone must catch a damage
    # that only a SPARQL constraint sees (a subject without a mention)
    g = rdflib.Graph().parse(example_out / "graph.ttl", format="turtle")
    paper = rdflib.URIRef("https://w3id.org/kg-abstracts/paper/" + paper_id(11))
    concept = rdflib.URIRef("https://w3id.org/kg-abstracts/concept/graph-neural-network")
    g.add((paper, rdflib.URIRef("http://purl.org/dc/terms/subject"), concept))
    assert _validate(g, sparql_constraints=False)[0]
    assert not _validate(g)[0]


# -- the CLI ------------------------------------------------------------------------------------

def run(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


def test_cli_related_cooccur_path_stats(example_out):
    r = run("related", example_out, paper_id(3), "--format", "json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)[0]["id"] == paper_id(14)
    r = run("cooccur", example_out, "GNN", "--format", "csv", "--limit", "3")
    assert r.exit_code == 0
    lines = r.stdout.splitlines()
    assert lines[0] == "label,type,papers,paper_ids" and len(lines) == 4
    r = run("path", example_out, "calibration", "LLM")
    assert r.exit_code == 0
    assert "calibration → graph neural network" in r.stdout
    assert "SHiFT" in r.stdout
    r = run("stats", example_out, "--format", "json")
    assert json.loads(r.stdout)["papers"] == 19
    r = run("stats", example_out)
    assert r.stdout.startswith("19 papers")


@pytest.mark.parametrize("engine", ["sparql", "python"])
def test_cli_engines_give_the_same_json(example_out, engine):
    outs = {}
    for e in ("sparql", "python"):
        r = run("papers", example_out, "--concept", "RL", "--engine", e, "--format", "json")
        assert r.exit_code == 0, r.output
        outs[e] = json.loads(r.stdout)
    assert outs["sparql"] == outs["python"]
    r = run("paper", example_out, paper_id(3), "--engine", engine, "--format", "json")
    assert json.loads(r.stdout)["concepts"][0]["label"] == "calibration"


def test_cli_errors_are_one_line(example_out):
    r = run("path", example_out, "MinHash", "differential privacy")
    assert r.exit_code == 2
    assert r.stderr.strip() == ("kg: error: no path links 'MinHash' and 'differential privacy' "
                                "through papers")
    r = run("related", example_out, "nope")
    assert r.exit_code == 2 and r.stderr.startswith("kg: error: no paper with id 'nope'")
    r = run("stats", example_out.parent / "not-built")
    assert r.exit_code == 2 and "not a built graph folder" in r.stderr


def test_cli_sparql_select_formats(example_out):
    q = 'SELECT ?id WHERE { ?p dcterms:identifier ?id ; dcterms:subject kgc:minhash }'
    r = run("sparql", example_out, q)
    assert r.exit_code == 0, r.output
    assert paper_id(11) in r.stdout and r.stdout.splitlines()[0].strip() == "id"
    r = run("sparql", example_out, q, "--format", "json")
    data = json.loads(r.stdout)
    assert data["head"]["vars"] == ["id"]
    assert data["results"]["bindings"] == [{"id": {"type": "literal", "value": paper_id(11)}}]
    r = run("sparql", example_out, q, "--format", "csv")
    assert r.stdout.splitlines() == ["id", paper_id(11)]


def test_cli_sparql_ask_construct_and_file(example_out, tmp_path):
    r = run("sparql", example_out, 'ASK { ?c skos:prefLabel "MinHash"@en }', "--format", "json")
    assert json.loads(r.stdout) == {"head": {}, "boolean": True}
    r = run("sparql", example_out, 'ASK { ?c skos:prefLabel "no such thing"@en }')
    assert r.stdout.strip() == "false"
    rq = tmp_path / "q.rq"
    rq.write_text("CONSTRUCT { ?c skos:prefLabel ?l } WHERE {\n"
                  "  ?c skos:prefLabel ?l FILTER(?l = 'MinHash'@en) }\n", encoding="utf-8")
    r = run("sparql", example_out, "--file", rq)
    assert r.exit_code == 0, r.output
    g = rdflib.Graph().parse(data=r.stdout, format="turtle")
    assert len(g) == 1
    r = run("sparql", example_out, "--file", rq, "--format", "json")
    assert rdflib.Graph().parse(data=r.stdout, format="json-ld").__len__() == 1


@pytest.mark.parametrize("query, where", [
    ("SELECT ?x WHERE { ?x ?y }", "1:26"),
    ("SELECT ?x\nWHERE {\n  ?x skos:prefLabel \"a }", "3:"),
    ("SELECT ?x WHERE { ?x nope:thing ?y }", "1:32: unknown prefix 'nope:'"),
])
def test_cli_sparql_syntax_errors_are_one_line_with_position(example_out, query, where):
    r = run("sparql", example_out, query)
    assert r.exit_code == 2
    line = r.stderr.strip()
    assert line.startswith("kg: error: SPARQL syntax error:") and "\n" not in line
    assert where in line


def test_cli_sparql_argument_errors(example_out, tmp_path):
    rq = tmp_path / "q.rq"
    rq.write_text("ASK {}", encoding="utf-8")
    assert run("sparql", example_out, "ASK {}", "--file", rq).exit_code == 2
    r = run("sparql", example_out, "  ")
    assert r.exit_code == 2 and "give a query" in r.stderr


def test_store_is_opened_read_only(example_out):
    store = open_store(example_out)
    with pytest.raises((OSError, RuntimeError)):
        store.add(ox.Quad(ox.NamedNode("http://x/a"), ox.NamedNode("http://x/b"),
                          ox.Literal("c")))
