"""queries.paths.shortest_path: the shortest, lexicographically smallest concept path."""

from __future__ import annotations

import itertools

import networkx as nx
from hypothesis import given, settings
from hypothesis import strategies as st

from queries.paths import path_rows, shortest_path


def _engine(links):
    by_paper, by_concept = {}, {}
    for p, c in links:
        by_paper.setdefault(p, set()).add(c)
        by_concept.setdefault(c, set()).add(p)
    calls = []

    def papers_of(ids):
        calls.append(("c", list(ids)))
        return {i: by_concept.get(i, set()) for i in ids}

    def concepts_of(ids):
        calls.append(("p", list(ids)))
        return {i: by_paper.get(i, set()) for i in ids}

    return papers_of, concepts_of, calls


def _reference(links, a, b):
    """Every shortest path by networkx, the lexicographically smallest by (kind, id) nodes."""
    g = nx.Graph()
    g.add_nodes_from([("c", a), ("c", b)])
    g.add_edges_from((("p", p), ("c", c)) for p, c in links)
    try:
        paths = list(nx.all_shortest_paths(g, ("c", a), ("c", b)))
    except nx.NetworkXNoPath:
        return None
    return [n[1] for n in min(paths)]


links_strategy = st.sets(st.tuples(st.sampled_from([f"p{i}" for i in range(8)]),
                                   st.sampled_from([f"c{i}" for i in range(8)])), max_size=24)


@settings(max_examples=400, deadline=None)
@given(links_strategy, st.sampled_from([f"c{i}" for i in range(8)]),
       st.sampled_from([f"c{i}" for i in range(8)]))
def test_matches_the_smallest_of_all_shortest_paths(links, a, b):
    papers_of, concepts_of, _ = _engine(links)
    assert shortest_path(a, b, papers_of, concepts_of) == _reference(links, a, b)


def test_ties_are_broken_by_the_smallest_ids_from_a():
    # two equally short routes x -> z: through (p1, y) and through (p0, w); p0 < p1
    links = {("p1", "x"), ("p1", "y"), ("p2", "y"), ("p2", "z"),
             ("p0", "x"), ("p0", "w"), ("p3", "w"), ("p3", "z")}
    papers_of, concepts_of, _ = _engine(links)
    assert shortest_path("x", "z", papers_of, concepts_of) == ["x", "p0", "w", "p3", "z"]
    # from the other end the walk starts at z: p2 < p3
    assert shortest_path("z", "x", papers_of, concepts_of) == ["z", "p2", "y", "p1", "x"]


def test_one_query_per_layer_and_the_smaller_side_expands():
    # a chain c0 - p0 - c1 - p1 - ... - c5, plus a hub concept that many papers mention
    links = {(f"p{i}", f"c{i}") for i in range(5)} | {(f"p{i}", f"c{i + 1}") for i in range(5)}
    links |= {(f"q{i}", "c5") for i in range(30)}
    papers_of, concepts_of, calls = _engine(links)
    assert shortest_path("c0", "c5", papers_of, concepts_of) == [
        "c0", "p0", "c1", "p1", "c2", "p2", "c3", "p3", "c4", "p4", "c5"]
    assert len(calls) == 10  # one neighbour query per layer
    assert all(len(ids) <= 2 for _, ids in calls)  # never the 30-paper frontier at c5's side


def test_same_concept_no_path_and_limit():
    papers_of, concepts_of, _ = _engine({("p0", "a"), ("p0", "b"), ("p1", "c")})
    assert shortest_path("a", "a", papers_of, concepts_of) == ["a"]
    assert shortest_path("a", "c", papers_of, concepts_of) is None
    assert shortest_path("a", "unknown", papers_of, concepts_of) is None
    chain = {(f"p{i}", f"c{i}") for i in range(6)} | {(f"p{i}", f"c{i + 1}") for i in range(6)}
    papers_of, concepts_of, _ = _engine(chain)
    assert shortest_path("c0", "c6", papers_of, concepts_of, max_papers=3) is None
    assert len(shortest_path("c0", "c6", papers_of, concepts_of, max_papers=6)) == 13


def test_path_rows_carry_evidence_for_both_sides():
    rows = path_rows(["x", "p1", "y", "p2", "z"], labels={"x": "X", "y": "Y", "z": "Z"},
                     titles={"p1": "One", "p2": "Two"},
                     evidence={("p1", "x"): ["X is used."], ("p1", "y"): ["Y too."],
                               ("p2", "y"): ["Y again."], ("p2", "z"): ["And Z."]})
    assert [(r["step"], r["from_label"], r["title"], r["to_label"]) for r in rows] == [
        (1, "X", "One", "Y"), (2, "Y", "Two", "Z")]
    assert rows[1]["evidence_from"] == ["Y again."] and rows[1]["evidence_to"] == ["And Z."]


def test_exhaustive_small_graphs():
    # every bipartite graph on 3 papers x 3 concepts (2^9) and every pair of concepts
    cells = [(f"p{i}", f"c{j}") for i in range(3) for j in range(3)]
    for mask in range(1 << len(cells)):
        links = {cell for k, cell in enumerate(cells) if mask >> k & 1}
        papers_of, concepts_of, _ = _engine(links)
        for a, b in itertools.product(["c0", "c1", "c2"], repeat=2):
            assert shortest_path(a, b, papers_of, concepts_of) == _reference(links, a, b)
