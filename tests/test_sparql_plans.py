"""The SPARQL helpers' two ways of answering (few rows: look up; many: scan, count first)
give the same answers as the Python reference, whichever way the stored counts point.

The 20,000-paper bench store takes the "many" branches on its busy concepts; here each
branch is forced on NeurIPS 2018 by faking the counts the helpers decide with.
"""

from __future__ import annotations

import random

import pytest

from kg.stores.out import open_store
from queries import bridges as qbr
from queries import bridges_sparql as qbs
from queries import python as qpy
from queries import sparql as qs


@pytest.fixture(scope="module")
def store(neurips2018_out):
    return open_store(neurips2018_out)


@pytest.fixture(params=["few", "many"])
def plan(request, monkeypatch):
    """Make every helper believe its concepts have few links (or many) and papers are few
    (or many) to read, by faking the stored totals."""
    real = qs._link_count
    if request.param == "few":
        monkeypatch.setattr(qs, "_paper_total", lambda store: 10**9)
        monkeypatch.setattr(qs, "_link_count", lambda store, ids: (real(store, ids)[0], 10**9))
    else:
        monkeypatch.setattr(qs, "_paper_total", lambda store: 1)
        monkeypatch.setattr(qs, "_link_count", lambda store, ids: (real(store, ids)[0] + 1, 1))
    monkeypatch.setattr(qbs, "_link_count", qs._link_count)
    return request.param


def test_concept_helpers_agree_either_way(plan, store, neurips2018_kg):
    kg = neurips2018_kg
    by_df = sorted(kg.concept_papers, key=lambda c: (-len(kg.concept_papers[c]), c))
    rng = random.Random(8)
    for cid in by_df[:3] + rng.sample(by_df[3:], 5):
        label = kg.concepts[cid].label
        assert qs.papers_for_concept(store, label) == qpy.papers_for_concept(kg, label)
        for limit in (20, 3, 0):
            assert qs.cooccurring(store, label, limit=limit) == \
                qpy.cooccurring(kg, label, limit=limit), (label, limit)


def test_links_agree_either_way(plan, store, neurips2018_kg):
    kg = neurips2018_kg
    papers = sorted(kg.papers)[:200]
    assert dict(qs._links(store, papers, from_concepts=False)) == \
        {p: set(kg.paper_concepts[p]) for p in papers if p in kg.paper_concepts}
    concepts = sorted(kg.concept_papers)[:40]
    assert dict(qs._links(store, concepts, from_concepts=True)) == \
        {c: kg.concept_papers[c] for c in concepts}
    assert qs._links(store, [], from_concepts=True) == {}


def test_bridges_agree_either_way(plan, store, neurips2018_kg):
    kg = neurips2018_kg
    by_df = sorted(kg.concept_papers, key=lambda c: (-len(kg.concept_papers[c]), c))
    for a, b in [(by_df[0], by_df[1]), (by_df[0], by_df[-1]), (by_df[40], by_df[-40])]:
        la, lb = kg.concepts[a].label, kg.concepts[b].label
        assert qbs.bridges(store, la, lb) == qbr.bridges(kg, la, lb), (la, lb)


@pytest.mark.parametrize("limit", [10, 1, 0, -2, 10_000])
def test_related_papers_reads_only_what_can_rank(store, neurips2018_kg, limit):
    # the score floor keeps every paper tied at the cut, and Python's rows[:limit] semantics
    kg = neurips2018_kg
    for pid in random.Random(limit).sample(sorted(kg.papers), 6):
        assert qs.related_papers(store, pid, limit=limit) == \
            qpy.related_papers(kg, pid, limit=limit), (pid, limit)


def test_score_floor_keeps_ties_at_the_cut():
    # rounded scores 3.0 (1 paper), 2.0 (5 papers, two raw values), 1.0 (9 papers)
    counts = [(3.0, 1), (2.0000001, 2), (1.9999999, 3), (1.0, 9)]
    floor = qs._score_floor(counts, 2)
    assert 1.99999 < floor < 1.9999999  # every paper rounding to 2.0 is read
    assert qs._score_floor(counts, 1) > 2.0000001
    assert qs._score_floor(counts, 7) < 1.0
    assert qs._score_floor(counts, 0) == 0.0 and qs._score_floor([(0.0, 3)], 5) == 0.0
    assert qs._score_floor(counts, -1) is None
