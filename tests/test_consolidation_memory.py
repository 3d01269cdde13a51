"""Consolidation's tables grow with the vocabulary, not with the corpus (issue 17): what
the termhood filter and resolution hold while they run, per paper."""

import random
import tracemalloc

from extractors.acceptance import TOPIC, Decision, TermAcceptance, in_passing
from kg.core.model import Concept, Mention, MentionTable


def _corpus(papers: int, per_paper: int) -> tuple[dict[str, Concept], list[Mention]]:
    """``per_paper`` concepts mentioned twice each in every paper (ids in sorted order), one
    of them a topic under another."""
    concepts = {f"c{j}": Concept(f"c{j}", f"graph method {j}", origin="model")
                for j in range(per_paper)}
    concepts["c0"].broader = ["c1"]
    mentions = [Mention(f"p{i:06d}", f"c{j}", "abstract", k, k + 1, "x", "x", "model")
                for i in range(papers) for j in range(per_paper) for k in (0, 5)]
    return concepts, mentions


def test_the_termhood_filter_holds_no_table_per_paper():
    # a set of papers per concept and a count per (concept, paper) pair grew with the
    # corpus (~8 KB per paper at 5,000 papers): counted a paper at a time, the tables hold
    # one entry per concept
    concepts, mentions = _corpus(20_000, 5)
    tracemalloc.start()
    try:
        decisions = TermAcceptance().decide(concepts, mentions)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert decisions["c1"].reason == "20000 papers"
    assert peak < 1_000_000, peak  # 100,000 (concept, paper) pairs: ~15 MB before


def test_decisions_do_not_depend_on_the_mentions_order():
    # mentions come sorted by paper from consolidation and are then read a paper at a
    # time; in another order they are grouped first, with the same counts
    rng = random.Random(7)
    concepts = {f"c{j}": Concept(f"c{j}", label, origin="model") for j, label in enumerate(
        ["tactile sensing", "optical tactile sensing", "vision-based tactile sensing",
         "wave equation", "anchored response", "knowledge-augmented phrase retrieval model"])}
    concepts["c1"].broader = concepts["c2"].broader = ["c0"]
    mentions = [Mention(f"p{rng.randrange(6)}", f"c{rng.randrange(6)}",
                        rng.choice(["title", "abstract"]), k, k + 1, "x", "x", "model")
                for k in range(40)]
    ordered = sorted(mentions, key=lambda m: m.paper)
    assert TermAcceptance().decide(concepts, mentions) == \
        TermAcceptance().decide(concepts, ordered)
    assert TermAcceptance().decide(concepts, iter(mentions)) == \
        TermAcceptance().decide(concepts, ordered)
    topic = {"c0": Decision(True, TOPIC)}
    assert in_passing(mentions, topic) == in_passing(ordered, topic) == {
        (m.paper, "c0") for m in mentions if m.concept == "c0"
        and sum((2 if n.field == "title" else 1) for n in mentions
                if n.paper == m.paper and n.concept == "c0") < 2}


def test_resolved_mentions_share_their_surfaces_and_offsets():
    # one string per surface for the corpus, not a copy per mention, and offsets in arrays
    # (~130 bytes each before): the corpus says the same terms again and again
    from extractors.concepts import ConceptRegistry
    from extractors.consolidate import DocSpans, resolve
    from kg.core.model import Paper

    text = "x" * 300 + " We train graph neural networks on molecules."
    papers = [Paper(f"p{i}", "Graph neural networks", text) for i in range(20)]
    a = text.index("graph")
    found = [ds for p in papers for ds in (
        DocSpans(p.id, "title", [(0, 21)], [], [(0, 21, "method")]),
        DocSpans(p.id, "abstract", [(0, len(text))], [], [(a, a + 21, "method")]))]
    mentions, _ = resolve(found, papers, ConceptRegistry())
    assert len(mentions) == 40
    assert {m.text for m in mentions} == {"Graph neural networks", "graph neural networks"}
    assert len({id(m.text) for m in mentions}) == 2
    assert isinstance(mentions, MentionTable)


def test_an_acronym_counts_where_its_paper_spells_it_in_any_order_of_texts():
    # a two-letter acronym is kept where its paper spells it out: read a paper at a time
    # when each paper's texts come together, at once when they do not; the same result
    from extractors.concepts import ConceptRegistry
    from extractors.consolidate import DocSpans, resolve
    from kg.core.model import Paper

    papers = [Paper("p0", "Gaussian process priors", "We fit a GP prior."),
              Paper("p1", "Kernels", "A GP prior again.")]
    gp = "gaussian-process"
    found = {
        ("p0", "title"): DocSpans("p0", "title", [(0, 23)], [(0, 16, gp, "phrase")], []),
        ("p0", "abstract"): DocSpans("p0", "abstract", [(0, 18)], [(9, 11, gp, "acronym")],
                                     []),
        ("p1", "title"): DocSpans("p1", "title", [(0, 7)], [], []),
        ("p1", "abstract"): DocSpans("p1", "abstract", [(0, 17)], [(2, 4, gp, "acronym")],
                                     []),
    }

    def kept(order: list[tuple[str, str]]) -> list[tuple[str, str, str]]:
        registry = ConceptRegistry()
        assert registry.new_concept("gaussian process", "gaussian process",
                                    origin="lexicon") == gp
        mentions, _ = resolve([found[k] for k in order], papers, registry)
        return [(m.paper, m.field, m.text) for m in mentions]

    together = kept([("p0", "title"), ("p0", "abstract"), ("p1", "title"), ("p1", "abstract")])
    apart = kept([("p0", "title"), ("p1", "title"), ("p1", "abstract"), ("p0", "abstract")])
    assert together == apart == [("p0", "title", "Gaussian process"), ("p0", "abstract", "GP")]


def test_sorting_in_place_gives_the_order_of_sorted_mentions():
    from kg.core.model import sort_mentions, sorted_mentions

    rng = random.Random(3)
    mentions = [Mention(f"p{rng.randrange(9)}", f"c{rng.randrange(4)}",
                        rng.choice(["title", "abstract"]), a, a + rng.randrange(1, 3), "x",
                        "x", rng.choice(["model", "corpus"]))
                for a in (rng.randrange(20) for _ in range(500))]
    ordered = sorted_mentions(mentions)
    sort_mentions(mentions)
    assert [id(m) for m in mentions] == [id(m) for m in ordered]


def test_the_page_and_the_link_count_make_no_table_per_paper():
    # a Counter per paper (~1.2 KB each) was made after consolidation, at a 100,000-paper
    # build's peak; the page needs the shown papers' counts alone, the link count each
    # paper's concepts once
    from kg.core.model import KnowledgeGraph, Paper
    from kg.stores.graph import paper_link_count
    from visualizations.views import graph_view

    concepts, mentions = _corpus(300, 4)
    mentions += [Mention("p000007", "solo", "abstract", 9, 10, "y", "y", "model")]
    mentions.sort(key=lambda m: m.paper)
    papers = {f"p{i:06d}": Paper(f"p{i:06d}", f"Title {i}", "x y") for i in range(300)}
    concepts["solo"] = Concept("solo", "solo method", origin="model")
    kg = KnowledgeGraph(papers=papers, concepts=concepts, mentions=mentions)
    view = graph_view(kg, max_nodes=50)
    links = paper_link_count(kg)
    assert "paper_concepts" not in kg.__dict__
    whole = KnowledgeGraph(papers=papers, concepts=concepts, mentions=list(reversed(mentions)))
    assert links == paper_link_count(whole) == 300 * 299 // 2
    assert "paper_concepts" in whole.__dict__  # not grouped by paper: the table, as before
    titles = {n["id"]: n["title"] for n in view.net.nodes if n["kind"] == "paper"}
    drawn = {n["id"]: n["title"] for n in graph_view(whole, max_nodes=50).net.nodes
             if n["kind"] == "paper"}
    assert titles == drawn and titles
    assert all("concepts: " in t for t in titles.values())


def test_concept_papers_hold_no_hash_table_per_concept():
    # a set per concept (216 bytes at least) was the last rise of a 100,000-paper build's
    # peak: most concepts are in a few papers; a sorted tuple is 8 bytes a paper
    from kg.core.model import KnowledgeGraph

    mentions = [Mention(f"p{i:06d}", f"c{(i // 3) * 2 + k}", "abstract", k, k + 1, "x", "x",
                        "model") for i in range(30_000) for k in (0, 1, 0)]
    kg = KnowledgeGraph(mentions=mentions)
    tracemalloc.start()
    try:
        cp = kg.concept_papers
        held, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(cp) == 20_000 and sum(map(len, cp.values())) == 60_000
    # (~42 bytes: the tuples, the SortedIds and the dict; sets were ~79)
    assert held / 60_000 < 60, f"{held / 60_000:.0f} bytes a (concept, paper) pair"
    assert peak / 60_000 < 80, f"{peak / 60_000:.0f} bytes a pair at the peak"


def test_concept_papers_are_sets_of_papers_in_any_mentions_order():
    from kg.core.model import KnowledgeGraph

    rng = random.Random(5)
    mentions = [Mention(f"p{rng.randrange(40)}", f"c{rng.randrange(9)}", "abstract", 0, 1,
                        "x", "x", "model") for _ in range(300)]
    for ms in (mentions, sorted(mentions, key=lambda m: m.paper)):
        expected: dict[str, set[str]] = {}  # (concepts in first-mention order)
        for m in ms:
            expected.setdefault(m.concept, set()).add(m.paper)
        cp = KnowledgeGraph(mentions=ms).concept_papers
        assert cp == expected and list(cp) == list(expected)
        for cid, papers in cp.items():
            assert list(papers) == sorted(expected[cid])  # id order
            assert all(p in papers for p in expected[cid]) and "p99" not in papers
            assert papers & {"p1", "p2"} == {"p1", "p2"} & papers == expected[cid] & {"p1", "p2"}
            assert type(papers & set(map("p{}".format, range(40)))) is set
            assert papers | {"p99"} == {"p99"} | papers == expected[cid] | {"p99"}
            assert {"p1"} - papers == {"p1"} - expected[cid]
            union = set()
            union |= papers
            assert union == expected[cid]


def test_resolution_holds_its_candidates_in_columns():
    # a _Cand object per span of the corpus (~140 bytes with its offsets) was the largest
    # table resolution held (~0.4 GB at 100,000 papers); in columns a row is ~35 bytes,
    # and the mentions made from them ~45; a table out of paper order ("p10" < "p2") is
    # sorted a column at a time, not into a second table
    from extractors.concepts import ConceptRegistry
    from extractors.consolidate import DocSpans, resolve
    from kg.core.model import Paper

    terms = ["graph neural networks", "contrastive learning", "molecule generation",
             "reward model", "label noise"]
    text = "x" * 300 + "".join(f" We study {t} here." for t in terms * 4)
    spans = []
    for t in terms * 4:
        a = text.index(t, spans[-1][1] if spans else 0)
        spans.append((a, a + len(t), "method"))
    papers = [Paper(f"p{i}", "", text, title_derived=True) for i in range(3_000)]
    found = [DocSpans(p.id, "abstract", [(0, len(text))], [], spans) for p in papers]
    tracemalloc.start()
    try:
        mentions, _ = resolve(found, papers, ConceptRegistry())
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(mentions) == 60_000
    # ~90 bytes a candidate at the peak (its row, its mention's, the sort's copy of one
    # column: the ids are out of order), ~138 with a _Cand each and a second table to sort
    assert peak < 115 * len(mentions), peak / len(mentions)
