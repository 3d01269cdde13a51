"""Questions asked of a built graph: one function per question, every engine.

Each question is a plain function of a *source* (networkx-style: one name,
several backends): an engine, or what :func:`queries.engines.engine_for`
makes one of — a :class:`~kg.core.model.KnowledgeGraph` (Python engine), a
:class:`pyoxigraph.Store` (SPARQL), a :class:`~kg.stores.bolt.BoltGraph`
(Cypher), or a built ``OUT`` folder (the default engine). Engines only fetch
(:class:`queries.engine.Engine`); the questions (:mod:`queries.questions`,
:mod:`queries.bridging`) resolve, rank and assemble once, so every engine
returns the same items in the same order (ties broken by id).

Examples
--------
>>> from kg.core.model import Concept, KnowledgeGraph, Mention, Paper
>>> kg = KnowledgeGraph(
...     papers={"p": Paper("p", "On GNNs", "GNNs work.")},
...     concepts={"gnn": Concept("gnn", "graph neural network", aliases=["GNN"])},
...     mentions=[Mention("p", "gnn", "abstract", 0, 4, "GNNs", "GNNs work.", "acronym")])
>>> [r["id"] for r in papers_for_concept(kg, "GNNs")]
['p']
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kg.core.errors import Messages, StoreError
from queries.bridging import bridges
from queries.engines import ENGINES, engine_for, open_engine
from queries.questions import (
    concept_path,
    concepts,
    cooccurring,
    paper,
    papers,
    papers_for_concept,
    related_papers,
    stats,
    topic,
)
from queries.relations import evaluations, methods_for, relations
from queries.trends import trends

__all__ = ["ENGINES", "QUESTIONS", "bridges", "concept_path", "concepts", "cooccurring",
           "engine_for", "evaluations", "methods_for", "open_engine", "paper", "papers",
           "papers_for_concept", "related_papers", "relations", "run", "run_on", "stats",
           "topic", "trends"]

#: every question by name (``run``, the CLI and the differential test use this table)
QUESTIONS = {f.__name__: f for f in (papers, papers_for_concept, concepts, paper, related_papers,
                                     cooccurring, concept_path, stats, bridges, topic, trends,
                                     relations, methods_for, evaluations)}


def run(engine: str, out: str | Path, question: str, *args: Any, **kwargs: Any) -> Any:
    """Answer ``question(*args, **kwargs)`` with the engine ``engine`` over the build ``out``.

    Examples
    --------
    >>> run("sparql", "kg-out", "related_papers", "neurips2026-abstracts-3")  # doctest: +SKIP
    [{'id': 'neurips2026-abstracts-14', ...}]
    """
    if question not in QUESTIONS:
        raise ValueError(f"unknown question {question!r}; choose from {', '.join(QUESTIONS)}")
    return run_on(open_engine(engine, out), question, *args, **kwargs)


def run_on(source: Any, question: str, *args: Any, **kwargs: Any) -> Any:
    """Answer ``question(*args, **kwargs)`` from ``source`` (an engine :func:`open_engine`
    opened, or what :func:`engine_for` takes); a Bolt graph that is not as ``kg push`` writes
    it is one :class:`~kg.core.errors.StoreError`.

    Examples
    --------
    >>> from kg.core.model import KnowledgeGraph
    >>> run_on(KnowledgeGraph(), "stats")["papers"]
    0
    """
    if question not in QUESTIONS:
        raise ValueError(f"unknown question {question!r}; choose from {', '.join(QUESTIONS)}")
    try:
        return QUESTIONS[question](source, *args, **kwargs)
    except (TypeError, KeyError, ValueError, AttributeError) as e:
        graph = getattr(source, "graph", None)
        if graph is None or not hasattr(graph, "uri"):
            raise
        # a Bolt graph that someone changed: values of the wrong type, missing properties
        detail = " ".join(f"{type(e).__name__}: {e}".split())[:160]
        raise StoreError(Messages.BOLT_NOT_KG.format(uri=graph.uri, detail=detail)) from None
