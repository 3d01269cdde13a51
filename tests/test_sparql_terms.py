"""User text reaches SPARQL only through kg.stores.sparql_terms: it finds its term or nothing."""

from __future__ import annotations

import pyoxigraph as ox
import pytest
import rdflib
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import queries
from kg.core.errors import NotFoundError
from kg.core.model import Concept, KnowledgeGraph, Mention, Paper
from kg.stores.rdf import triples
from kg.stores.sparql_terms import iri, literal, values

NASTY = [
    'a "quoted" label', "it's", "{braces}", "} } SELECT * WHERE { ?s ?p ?o", "back\\slash",
    "\\", "\\\\", "\\u0022", "\\U00000022", "\\\\u0041", "line\nbreak", "cr\rlf\r\n", "tab\t",
    "ünïcödé — ‘quotes’", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 😀", "# not a comment", "?var $var", "<iri>", "", " ",
    '"""triple"""', "'''single'''", "\x00nul", "\x7f\x1b[0m", "\u2028sep\u2029",
]
P = "http://example.org/p"


def _stores(texts):
    store, graph = ox.Store(), rdflib.Graph()
    for i, text in enumerate(texts):
        s = f"http://example.org/s{i}"
        store.add(ox.Quad(ox.NamedNode(s), ox.NamedNode(P), ox.Literal(text)))
        graph.add((rdflib.URIRef(s), rdflib.URIRef(P), rdflib.Literal(text)))
    return store, graph


def _find(store, graph, text):
    q = f"SELECT ?s WHERE {{ {values('v', [literal(text)])} ?s <{P}> ?v }}"
    a = sorted(r[0].value for r in store.query(q))
    b = sorted(str(r[0]) for r in graph.query(q))
    return a, b


@pytest.mark.parametrize("text", NASTY)
def test_nasty_literals_find_exactly_their_subject_in_oxigraph_and_rdflib(text):
    store, graph = _stores(NASTY)
    expected = [f"http://example.org/s{NASTY.index(text)}"]
    assert _find(store, graph, text) == (expected, expected)


@pytest.mark.parametrize("text", ["absent \\u0022 label", "\\", '"', "}"])
def test_absent_literals_find_nothing(text):
    store, graph = _stores(["x", "y"])
    assert _find(store, graph, text) == ([], [])


_ALPHABET = st.sampled_from(list('\\uU0123456789abcdefABCDEF"\'{}<>#?$.;\n\r\t é😀'))


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.text(_ALPHABET, max_size=12), min_size=1, max_size=4, unique=True),
       st.text(_ALPHABET, max_size=12))
def test_any_text_matches_itself_or_nothing(texts, probe):
    store, graph = _stores(texts)
    for text in texts:
        want = [f"http://example.org/s{texts.index(text)}"]
        assert _find(store, graph, text) == (want, want)
    want = [f"http://example.org/s{texts.index(probe)}"] if probe in texts else []
    assert _find(store, graph, probe) == (want, want)


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=20))
def test_any_unicode_text_round_trips(text):
    store, graph = _stores([text])
    assert _find(store, graph, text) == (["http://example.org/s0"], ["http://example.org/s0"])


def test_language_tags_and_datatypes():
    store = ox.Store()
    store.add(ox.Quad(ox.NamedNode("http://x/a"), ox.NamedNode(P),
                      ox.Literal('G"NN', language="en")))
    tagged, plain = literal('G"NN', lang="en"), literal('G"NN')
    assert store.query(f"ASK {{ ?s <{P}> {tagged} }}")
    assert not store.query(f"ASK {{ ?s <{P}> {plain} }}")
    with pytest.raises(ValueError):
        literal("x", lang="en} } DROP ALL #")
    with pytest.raises(ValueError):
        literal("x", lang="en", datatype="http://www.w3.org/2001/XMLSchema#string")
    assert literal("5", datatype="http://www.w3.org/2001/XMLSchema#integer").endswith(
        "^^<http://www.w3.org/2001/XMLSchema#integer>")


def test_lone_surrogates_are_refused_not_sent():
    with pytest.raises(ValueError, match="surrogate"):
        literal("bad \udc80")
    with pytest.raises(ValueError, match="surrogate"):
        iri("http://x/\udc80")


@pytest.mark.parametrize("value", ['http://x/a b', 'http://x/a>b', 'http://x/{"}', "http://x/\\u0022",
                                   "http://x/a|b^c`d", "http://x/\n"])
def test_iri_encodes_what_an_iri_may_not_contain(value):
    term = iri(value)
    inner = term[1:-1]
    assert not any(ch in inner for ch in '<>"{}|^`\\ \n')
    store = ox.Store()
    assert list(store.query(f"SELECT * WHERE {{ {term} ?p ?o }}")) == []
    rdflib.Graph().query(f"SELECT * WHERE {{ {term} ?p ?o }}")  # parses


def test_iri_keeps_valid_iris_unchanged():
    from kg.core.vocab import concept_iri, paper_iri

    for value in (concept_iri("graph-neural-network"), paper_iri('we"ird {id}\\'),
                  "https://example.org/ünï/ø?x=1#frag"):
        assert iri(value) == f"<{value}>"


def test_values_checks_the_variable_name():
    with pytest.raises(ValueError):
        values("x } DROP ALL", ["<http://x>"])


# -- the helpers themselves, with hostile labels and ids ------------------------------------

WEIRD_LABEL = 'the "best" {model} \\u0022 back\\slash\nnewline ünï'
WEIRD_ID = 'paper "1" } { \\u0022'


@pytest.fixture(scope="module")
def hostile():
    concepts = {
        "weird": Concept("weird", WEIRD_LABEL, type="method", aliases=['W"M}']),
        "plain": Concept("plain", "plain method", type="method"),
    }
    papers = {pid: Paper(pid, f"Title of {pid}", "Abstract.") for pid in (WEIRD_ID, "p2", "p3")}
    mentions = [
        Mention(WEIRD_ID, "weird", "abstract", 0, 5, "weird", "A weird sentence.", "lexicon"),
        Mention(WEIRD_ID, "plain", "abstract", 6, 9, "plain", "A plain sentence.", "lexicon"),
        Mention("p2", "plain", "abstract", 0, 5, "plain", "Plain again.", "lexicon"),
    ]
    kg = KnowledgeGraph(papers=papers, concepts=concepts, mentions=mentions)
    store = ox.Store()
    store.extend(ox.Quad(t.subject, t.predicate, t.object) for t in triples(kg))
    return kg, store


def test_hostile_label_finds_its_concept(hostile):
    kg, store = hostile
    for text in (WEIRD_LABEL, 'W"M}'):
        rows = queries.papers_for_concept(store, text)
        assert [r["id"] for r in rows] == [WEIRD_ID]
        assert rows == queries.papers_for_concept(kg, text)
    assert queries.cooccurring(store, WEIRD_LABEL) == queries.cooccurring(kg, WEIRD_LABEL)


@pytest.mark.parametrize("text", ['"} }', "\\", "{", '"worst"', "\n"])
def test_hostile_text_finds_nothing_with_a_clear_error(hostile, text):
    _, store = hostile
    with pytest.raises(NotFoundError, match="no concept matches"):
        queries.papers_for_concept(store, text)


def test_words_of_a_hostile_label_find_it_as_a_family(hostile):
    # 'the "best"' names no concept, but its words stand in the weird label (issue 15)
    kg, store = hostile
    rows = queries.papers_for_concept(store, 'the "best"')
    assert [(r["id"], r["topic"]) for r in rows] == [(WEIRD_ID, "family")]
    assert rows == queries.papers_for_concept(kg, 'the "best"')


def test_hostile_paper_ids(hostile):
    kg, store = hostile
    assert queries.paper(store, WEIRD_ID) == queries.paper(kg, WEIRD_ID)
    assert queries.related_papers(store, "p2") == queries.related_papers(kg, "p2")
    assert [r["id"] for r in queries.related_papers(store, "p2")] == [WEIRD_ID]
    for bad in ('p2"} }', "p2>", "\\u0070\\u0032"):
        with pytest.raises(NotFoundError, match="no paper with id"):
            queries.related_papers(store, bad)
    path = queries.concept_path(store, WEIRD_LABEL, "plain method")
    assert path == queries.concept_path(kg, WEIRD_LABEL, "plain method")
    assert path[0]["paper"] == WEIRD_ID
