import re

import rdflib

from kg.core.vocab import sparql_prefixes
from kg.stores.out import open_rdflib_graph
from tests.conftest import paper_id


def test_turtle_parses_and_matches_the_store(example_out):
    g = rdflib.Graph()
    g.parse(example_out / "graph.ttl", format="turtle")
    store = open_rdflib_graph(example_out)
    assert len(g) == len(store) > 1000


def test_store_answers_sparql_about_concepts(example_out):
    g = open_rdflib_graph(example_out)
    q = sparql_prefixes() + """
        SELECT ?id WHERE {
          ?p dcterms:identifier ?id ; dcterms:subject ?c .
          ?c skos:prefLabel "MinHash"@en .
        }"""
    assert [str(r[0]) for r in g.query(q)] == [paper_id(11)]


def test_page_is_offline_and_escaped(example_out):
    html = (example_out / "graph.html").read_text(encoding="utf-8")
    assert "new vis.Network" in html
    # no network loads: no external scripts, stylesheets or fonts
    assert not re.search(r"""<(script|link)[^>]+(src|href)=["']?https?:""", html)
    assert "cdn." not in html
    data = re.search(r'<script id="kg-data" type="application/json">(.*?)</script>', html, re.S)
    assert data and "<" not in data.group(1)
    assert "MinHash" in data.group(1)


def test_paper_link_count_counts_the_pairs_paper_links_lists(example_kg):
    from kg.stores.graph import paper_link_count, paper_links

    assert paper_link_count(example_kg) == len(paper_links(example_kg)) > 0


def test_paper_link_count_of_concepts_in_many_papers_and_in_few():
    # concepts in at least 1/32 of the papers are bitmaps, the others arrays of papers
    import random

    from kg.core.model import KnowledgeGraph, Mention, Paper
    from kg.stores.graph import paper_link_count, paper_links

    rng = random.Random(7)
    papers = {f"p{i:03d}": Paper(f"p{i:03d}", "t", "x") for i in range(200)}
    mentions = [Mention(p, f"c{min(int(rng.paretovariate(0.6)), 300)}", "abstract", 0, 1, "x",
                        "x.", "lexicon")
                for p in papers for _ in range(rng.randint(0, 5))]
    kg = KnowledgeGraph(papers=papers, mentions=mentions)
    sizes = [len(ps) for ps in kg.concept_papers.values()]
    assert max(sizes) > 100 and any(1 < n < 200 // 32 for n in sizes)
    assert paper_link_count(kg) == len(paper_links(kg)) > 0
