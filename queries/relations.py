"""Questions about relations between concepts: what X is used for, what is used for X, which
methods solve a task, which datasets and metrics evaluate a method or a task.

Answered once for every engine: the engine fetches the relation edges at the concepts
(:meth:`queries.engine.Engine.relation_edges`); resolving the text, narrower expansion,
direction, filters and order are done here.

A relation reads in SciERC's direction, ``head TYPE tail``: *GNN used-for node
classification*, *Cora evaluate-for GNN*. ``direction="out"`` keeps the relations where the
concept is the head ("what is X used for"), ``"in"`` those where it is the tail ("what is
used for X"); ``compare`` and ``conjunction`` have no direction and count as both.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from kg.core.errors import Messages, QueryError
from kg.core.model import RELATION_TYPES, SYMMETRIC_RELATION_TYPES, RelationEdge
from queries.concept_table import ConceptTable
from queries.engines import engine_for
from queries.topics import resolve_concept

__all__ = ["DIRECTIONS", "evaluations", "methods_for", "paper_relation_rows", "relations"]

#: ``out``: the concept is the relation's head; ``in``: its tail; ``both``.
DIRECTIONS = ("both", "out", "in")


def _rank(row: dict) -> tuple:
    return (-row["papers"], -row["statements"], RELATION_TYPES.index(row["relation"]),
            row["head"], row["tail"], row["head_id"], row["tail_id"])


def _row(table: ConceptTable, edge: RelationEdge, direction: str, other: str) -> dict:
    first = min(edge.evidence)  # the first paper by id: the same in every engine
    return {
        "relation": edge.type, "direction": direction,
        "head": table.label(edge.head), "tail": table.label(edge.tail),
        "concept": table.label(other), "concept_type": table.concepts[other].type,
        "papers": len(edge.evidence), "statements": edge.count,
        "paper_ids": sorted(edge.evidence), "evidence": edge.evidence[first],
        "evidence_paper": first, "head_id": edge.head, "tail_id": edge.tail,
    }


def relations(source: Any, text: str, *, type: str | Collection[str] | None = None,  # noqa: A002
              direction: str = "both", of_type: str | Collection[str] | None = None,
              narrower: bool = True) -> list[dict]:
    """The relations of the concept ``text`` (a label, alias or acronym) with other concepts.

    Parameters
    ----------
    source
        An engine or what :func:`queries.engines.engine_for` takes.
    text : str
        The concept (step 1 of :func:`queries.topics.resolve`: its name, not words of it).
    type : str or collection of str, optional
        Only relations of these types (:data:`kg.core.model.RELATION_TYPES`).
    direction : {"both", "out", "in"}
        ``out``: the concept is the head ("what is X used for"); ``in``: the tail ("what is
        used for X"). Symmetric types count as both.
    of_type : str or collection of str, optional
        Only relations with concepts of these types at the other end (``method``, ``dataset`` …).
    narrower : bool
        Also the relations of the concepts below it (the row's ``head``/``tail`` say which).

    Returns
    -------
    list of dict
        ``relation, direction, head, tail, concept, concept_type, papers, statements,
        paper_ids, evidence, evidence_paper, head_id, tail_id``: ``concept`` is the other
        end; ``papers`` how many papers state it, ``statements`` how many sentences;
        ``evidence`` is the first sentence stating it in the first of its papers by id.
        Ordered by papers, then statements (most first), type, head and tail labels.

    Raises
    ------
    NotFoundError
        ``text`` names no concept (with suggestions).

    Examples
    --------
    >>> from kg.core.model import Concept, KnowledgeGraph, Relation, Paper
    >>> s = "We use GNNs for node classification."
    >>> kg = KnowledgeGraph(
    ...     papers={"p": Paper("p", "GNNs", s)},
    ...     concepts={"gnn": Concept("gnn", "graph neural network", "method", ["GNN"]),
    ...               "nc": Concept("nc", "node classification", "task")},
    ...     relations=[Relation("p", "used-for", "abstract", 7, 11, "GNNs", 16, 35,
    ...                         "node classification", s, "model", head_concept="gnn",
    ...                         tail_concept="nc")])
    >>> [(r["head"], r["relation"], r["tail"]) for r in relations(kg, "GNN")]
    [('graph neural network', 'used-for', 'node classification')]
    >>> relations(kg, "node classification", direction="out")
    []
    """
    if direction not in DIRECTIONS:
        raise QueryError(Messages.BAD_CHOICE.format(
            what="direction", value=direction, choices=", ".join(DIRECTIONS)))
    types = _choices(type, RELATION_TYPES, "relation type")
    engine = engine_for(source)
    table = engine.concept_table()
    concept = resolve_concept(table, text)
    members = table.narrower(concept.id) if narrower else {concept.id}
    other_types = None if of_type is None else (
        {of_type} if isinstance(of_type, str) else set(of_type))
    rows = []
    for edge in engine.relation_edges(sorted(members)):
        if edge.type not in types or edge.head not in table.concepts \
                or edge.tail not in table.concepts or not edge.evidence:
            continue
        symmetric = edge.type in SYMMETRIC_RELATION_TYPES
        if edge.head in members and (direction != "in" or symmetric):
            row = _row(table, edge, "both" if symmetric else "out", edge.tail)
        elif edge.tail in members and (direction != "out" or symmetric):
            row = _row(table, edge, "both" if symmetric else "in", edge.head)
        else:
            continue
        if other_types is None or row["concept_type"] in other_types:
            rows.append(row)
    return sorted(rows, key=_rank)


def _choices(value: str | Collection[str] | None, known: tuple[str, ...], what: str) -> set[str]:
    if value is None:
        return set(known)
    wanted = {value} if isinstance(value, str) else set(value)
    for v in sorted(wanted - set(known)):
        raise QueryError(Messages.BAD_CHOICE.format(what=what, value=v, choices=", ".join(known)))
    return wanted


def methods_for(source: Any, text: str, *, narrower: bool = True) -> list[dict]:
    """Methods used for the task (or other concept) ``text``: the ``used-for`` relations that
    end at it, from a concept of type ``method`` (:func:`relations` rows).

    Examples
    --------
    >>> from kg.core.model import KnowledgeGraph
    >>> methods_for(KnowledgeGraph(), "node classification")  # doctest: +IGNORE_EXCEPTION_DETAIL
    Traceback (most recent call last):
    kg.core.errors.NotFoundError: no concept matches 'node classification'
    """
    return relations(source, text, type="used-for", direction="in", of_type="method",
                     narrower=narrower)


def evaluations(source: Any, text: str, *, narrower: bool = True) -> list[dict]:
    """Datasets and metrics that evaluate the method or task ``text``: the ``evaluate-for``
    relations that end at it, from a ``dataset`` or ``metric`` (:func:`relations` rows)."""
    return relations(source, text, type="evaluate-for", direction="in",
                     of_type=("dataset", "metric"), narrower=narrower)


def paper_relation_rows(table: ConceptTable, edges: list[RelationEdge]) -> list[dict]:
    """The relations one paper states (:meth:`~queries.engine.Engine.paper_relations`), as rows
    ``relation, head, tail, head_id, tail_id, evidence``, in type order, then by labels."""
    rows = [{"relation": e.type, "head": table.label(e.head), "tail": table.label(e.tail),
             "head_id": e.head, "tail_id": e.tail, "evidence": next(iter(e.evidence.values()))}
            for e in edges
            if e.head in table.concepts and e.tail in table.concepts and e.evidence]
    return sorted(rows, key=lambda r: (RELATION_TYPES.index(r["relation"]), r["head"],
                                       r["tail"], r["head_id"], r["tail_id"]))
