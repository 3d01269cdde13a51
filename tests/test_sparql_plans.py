"""The SPARQL helpers' two ways of answering (few rows: look up; many: scan, count first)
give the same answers as the Python reference, whichever way the stored counts point.

The 20,000-paper bench store takes the "many" branches on its busy concepts; here each
branch is forced on NeurIPS 2018 with the engine's ``plan``.
"""

from __future__ import annotations

import random

import pytest

import queries
from kg.stores.out import open_store
from queries.python import PythonEngine
from queries.ranking import score_floor
from queries.sparql import SparqlEngine


@pytest.fixture(scope="module")
def store(neurips2018_out):
    return open_store(neurips2018_out)


@pytest.fixture(params=["few", "many"])
def plan(request) -> str:
    """Every SPARQL helper looks up (few) or scans and counts first (many)."""
    return request.param


def test_concept_helpers_agree_either_way(plan, store, neurips2018_kg):
    kg = neurips2018_kg
    by_df = sorted(kg.concept_papers, key=lambda c: (-len(kg.concept_papers[c]), c))
    rng = random.Random(8)
    for cid in by_df[:3] + rng.sample(by_df[3:], 5):
        label = kg.concepts[cid].label
        engine = SparqlEngine(store, plan=plan)
        assert queries.papers_for_concept(engine, label) == queries.papers_for_concept(kg, label)
        for limit in (20, 3, 0):
            assert queries.cooccurring(engine, label, limit=limit) == \
                queries.cooccurring(kg, label, limit=limit), (label, limit)


def test_links_agree_either_way(plan, store, neurips2018_kg):
    kg = neurips2018_kg
    papers = sorted(kg.papers)[:200]
    engine, reference = SparqlEngine(store, plan=plan), PythonEngine(kg)
    assert engine.paper_concepts(papers) == reference.paper_concepts(papers)
    concepts = sorted(kg.concept_papers)[:40]
    assert engine.papers_of(concepts) == reference.papers_of(concepts)
    assert engine.papers_of([]) == {} and engine.paper_concepts([]) == {}


def test_bridges_agree_either_way(plan, store, neurips2018_kg):
    kg = neurips2018_kg
    by_df = sorted(kg.concept_papers, key=lambda c: (-len(kg.concept_papers[c]), c))
    for a, b in [(by_df[0], by_df[1]), (by_df[0], by_df[-1]), (by_df[40], by_df[-40])]:
        la, lb = kg.concepts[a].label, kg.concepts[b].label
        assert queries.bridges(SparqlEngine(store, plan=plan), la, lb) == \
            queries.bridges(kg, la, lb), (la, lb)


@pytest.mark.parametrize("limit", [10, 1, 0, -2, 10_000])
def test_related_papers_reads_only_what_can_rank(store, neurips2018_kg, limit):
    # the score floor keeps every paper tied at the cut, and Python's rows[:limit] semantics
    kg = neurips2018_kg
    for pid in random.Random(limit).sample(sorted(kg.papers), 6):
        assert queries.related_papers(store, pid, limit=limit) == \
            queries.related_papers(kg, pid, limit=limit), (pid, limit)


def test_score_floor_keeps_ties_at_the_cut():
    # rounded scores 3.0 (1 paper), 2.0 (5 papers, two raw values), 1.0 (9 papers)
    counts = [(3.0, 1), (2.0000001, 2), (1.9999999, 3), (1.0, 9)]
    floor = score_floor(counts, 2)
    assert 1.99999 < floor < 1.9999999  # every paper rounding to 2.0 is read
    assert score_floor(counts, 1) > 2.0000001
    assert score_floor(counts, 7) < 1.0
    assert score_floor(counts, 0) == 0.0 and score_floor([(0.0, 3)], 5) == 0.0
    assert score_floor(counts, -1) is None
