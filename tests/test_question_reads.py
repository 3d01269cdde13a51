"""Each question reads every paper's year and venue (``Engine.paper_meta``, a scan of all
papers in every engine) at most once, whatever the topic resolves to and the filters."""

from __future__ import annotations

import dataclasses

import pytest

from kg.core.model import KnowledgeGraph
from queries import QUESTIONS
from queries.python import PythonEngine
from tests.conftest import paper_id


class CountingEngine(PythonEngine):
    """The Python engine, counting how often a question reads the papers' year and venue."""

    reads = 0

    def paper_meta(self):
        self.reads += 1
        return super().paper_meta()


@pytest.fixture(scope="module")
def dated_kg(example_kg) -> KnowledgeGraph:
    """The example corpus with years (1–9: 2024, 10–19: 2025) and a venue."""
    papers = {pid: dataclasses.replace(p, year=2024 if int(pid.rsplit("-", 1)[1]) <= 9
                                       else 2025, venue="NeurIPS")
              for pid, p in example_kg.papers.items()}
    return KnowledgeGraph(papers=papers, concepts=example_kg.concepts,
                          mentions=example_kg.mentions, relations=example_kg.relations)


#: question -> the arguments to ask it with: a concept, a family and words of the abstracts only
ASKED = {
    "papers_for_concept": [("GNNs",), ("uncertainty",), ("ranked candidate list",)],
    "cooccurring": [("GNNs",), ("ranked candidate list",)],
    "topic": [("ranked candidate list",)],
    "bridges": [("GNNs", "uncertainty"), ("ranked candidate list", "LLMs")],
    "concept_path": [("graph neural networks", "contrastive learning")],
    "related_papers": [(paper_id(3),)],
    "paper": [(paper_id(3),)],
    "concepts": [()], "stats": [()], "trends": [()], "papers": [()],
    "relations": [("graph neural network",)], "methods_for": [("node classification",)],
    "evaluations": [("graph neural network",)],
}
FILTERS = [{}, {"year": 2025}, {"since": 2024, "venue": "neurips"}]


def test_every_question_is_asked_here():
    assert set(ASKED) == set(QUESTIONS)


@pytest.mark.parametrize("question", sorted(ASKED))
def test_a_question_reads_the_papers_year_and_venue_at_most_once(dated_kg, question):
    import inspect

    accepts = inspect.signature(QUESTIONS[question]).parameters
    for args in ASKED[question]:
        for filters in FILTERS:
            kwargs = {k: v for k, v in filters.items() if k in accepts}
            engine = CountingEngine(dated_kg)
            QUESTIONS[question](engine, *args, **kwargs)
            assert engine.reads <= 1, (question, args, kwargs, engine.reads)


def test_text_rows_keep_year_and_venue_and_the_filter(dated_kg):
    rows = QUESTIONS["papers_for_concept"](PythonEngine(dated_kg), "ranked candidate list")
    assert [(r["id"], r["year"], r["venue"], r["topic"]) for r in rows] == [
        (paper_id(17), 2025, "NeurIPS", "text")]
    assert QUESTIONS["papers_for_concept"](PythonEngine(dated_kg), "ranked candidate list",
                                           year=2024) == []


def test_papers_of_a_concept_filter_on_what_the_links_bring(dated_kg):
    engine = CountingEngine(dated_kg)
    rows = QUESTIONS["papers_for_concept"](engine, "GNNs", year=2025)
    assert {r["id"] for r in rows} == {paper_id(14), paper_id(18)}
    assert all(r["year"] == 2025 for r in rows)
    assert engine.reads == 0  # concept_links brings each linked paper's year and venue


def test_the_paper_list_keeps_the_papers_of_the_filters(dated_kg):
    every = QUESTIONS["papers"](PythonEngine(dated_kg))
    assert [r["id"] for r in every] == sorted(dated_kg.papers)
    assert {r["concepts"] for r in every} != {0}  # counts of each paper's own concepts
    later = QUESTIONS["papers"](PythonEngine(dated_kg), since=2025, venue="neurips")
    assert [r["id"] for r in later] == [r["id"] for r in every if r["year"] == 2025]
    assert later and len(later) < len(every)
