"""Relations kept in a temporary file as extraction finds them (extractors.relation_file)."""

import gc
from dataclasses import replace

from extractors import pipeline
from extractors.pipeline import extract_corpus
from extractors.relation_file import RelationFile, Relations
from extractors.relation_links import link_graph, link_relations, link_sorted
from kg.core.model import Concept, Mention, Paper, Relation, sorted_relations
from kg.stores.rdf import extractor_names
from tests.test_relations import PAPERS, PRONOUN

# ids of this module's own: Relation objects of other tests' graphs are not counted
CORPUS = [Paper(f"relfile-{p.id}", p.title, p.abstract) for p in [*PAPERS, PRONOUN]][::-1]


def test_relations_on_disk_read_as_the_list_would_be():
    listed = extract_corpus(CORPUS)
    lazy = extract_corpus(CORPUS, relations_on_disk=True)
    assert isinstance(listed.relations, list) and isinstance(lazy.relations, Relations)
    assert len(listed.relations) == len(lazy.relations) > 3
    assert list(lazy.relations) == listed.relations
    assert [lazy.relations[k] for k in range(-1, len(listed.relations))] == \
        [listed.relations[-1], *listed.relations]
    assert lazy.relations[1:3] == listed.relations[1:3]
    # linked as read (no list of them is made), to the same concepts
    link_graph(listed)
    link_graph(lazy)
    assert isinstance(lazy.relations, Relations)
    assert list(lazy.relations) == listed.relations
    assert any(r.head_concept for r in listed.relations)
    assert lazy.relation_edges == listed.relation_edges
    assert extractor_names(lazy) == extractor_names(listed)


def test_relations_linked_once_are_read_linked_at_every_pass_without_linking_again():
    graph = extract_corpus(CORPUS, relations_on_disk=True)
    calls: list[int] = []

    def link(rows):  # type: ignore[no-untyped-def]
        calls.append(1)
        return link_sorted(rows, graph.mentions, graph.concepts)

    expected = list(graph.relations.linked(link))
    once = graph.relations.linked_once(link)
    assert calls == [1, 1]  # one pass above, one to link them into the file
    assert list(once) == expected and list(once) == expected and len(once) == len(expected)
    assert [once[k] for k in range(len(once))] == expected
    assert calls == [1, 1]
    assert any(r.head_concept for r in expected)
    assert expected != list(graph.relations)  # the source is read as it was: not linked


def test_the_extraction_process_keeps_no_relation_objects_while_consolidating(monkeypatch):
    # relations are found with extraction (the shipped argument model): they go to the
    # relation file as they come, so none is alive while terms are resolved across papers
    resolve = pipeline.resolve_corpus
    alive: list[int] = []

    def counting(*args, **kwargs):  # type: ignore[no-untyped-def]
        gc.collect()
        alive.append(sum(isinstance(o, Relation) and o.paper.startswith("relfile-")
                         for o in gc.get_objects()))
        return resolve(*args, **kwargs)

    monkeypatch.setattr(pipeline, "resolve_corpus", counting)
    graph = extract_corpus(CORPUS, relations_on_disk=True)
    assert alive == [0]
    assert any(r.paper.startswith("relfile-") for r in graph.relations)


def test_a_relation_file_sorts_by_field_and_keeps_ties_in_the_order_put():
    def rel(paper: str, field: str, start: int, extractor: str = "model") -> Relation:
        return Relation(paper, "used-for", field, start, start + 1, "x", 9, 10, "y", "s",
                        extractor)

    # the same key (a stable sort keeps them in the order found)
    second = rel("a", "abstract", 0)
    first = replace(second, score=0.5)
    with RelationFile(4) as file:
        file.put(3, [rel("b", "title", 5), rel("b", "title", 1)])
        file.put(0, [first, rel("a", "abstract", 7), second])
        file.put(1, [rel("a", "title", 2)])
        file.put(2, [])
        got = list(file.relations([0, 1, 2, 3], [("a", "abstract"), ("a", "title"),
                                                 ("b", "abstract"), ("b", "title")]))
        everything = [*file.get(3), *file.get(0), *file.get(1)]
    assert got == sorted_relations(everything)
    assert got[1] is not got[2] and (got[1].score, got[2].score) == (0.5, 1.0)


def test_linking_a_sorted_stream_equals_linking_a_list_whatever_the_mentions_order():
    s = "GNNs are used for node classification."
    ms = [Mention("p", "gnn", "abstract", 0, 4, "GNNs", s, "acronym"),
          Mention("p", "nc", "abstract", 18, 37, "node classification", s, "lexicon"),
          Mention("q", "nc", "title", 18, 37, "node classification", s, "lexicon"),
          Mention("q", "gnn", "title", 0, 4, "GNNs", s, "acronym")]
    cs = {"gnn": Concept("gnn", "graph neural network"), "nc": Concept("nc", "node cl")}
    rs = [Relation(p, "used-for", f, 0, 4, "GNNs", 18, 37, "node classification", s, "model")
          for p, f in (("q", "title"), ("p", "abstract"), ("p", "title"))]
    linked = link_relations(rs, ms, cs)
    assert [(r.paper, r.head_concept, r.tail_concept) for r in linked] == \
        [("p", None, None), ("p", "gnn", "nc"), ("q", "gnn", "nc")]
    # grouped by field (a build's mentions), walked along; or not, grouped first
    ordered = sorted(ms, key=lambda m: (m.paper, m.field != "title", m.start))
    assert list(link_sorted(sorted_relations(rs), ordered, cs)) == linked
    assert list(link_sorted(sorted_relations(rs), ms[::-1], cs)) == linked
