"""Relation edges on the pages: "GNN used-for node classification" as a typed, directed link.

Every view that shows concepts adds the relation edges between the concepts it shows
(:attr:`kg.core.model.KnowledgeGraph.relation_edges`): one colour per type, an arrow from
head to tail (none for ``compare`` and ``conjunction``, which have no direction), width by
the number of papers, and a tooltip with the first paper's evidence sentence. The page
escapes every text (:mod:`visualizations.page`); the legend lists each type as an edge kind
(:data:`visualizations.page.EDGE_KINDS`) that can be switched off.
"""

from __future__ import annotations

from collections.abc import Collection

from kg.core.model import SYMMETRIC_RELATION_TYPES, KnowledgeGraph
from kg.stores.graph import concept_node
from visualizations.details import plural
from visualizations.style import RELATION_COLORS, short, snippet

__all__ = ["edge_kind", "relation_vis_edges"]


def edge_kind(relation_type: str) -> str:
    """The page's edge kind of a relation type (``relation-used-for``)."""
    return f"relation-{relation_type}"


def relation_vis_edges(kg: KnowledgeGraph, concepts: Collection[str]) -> list[dict]:
    """vis-network edges for the relation edges between two of ``concepts`` (ids).

    Examples
    --------
    >>> from kg.core.model import Concept, Relation
    >>> s = "GNNs are used for node classification."
    >>> kg = KnowledgeGraph(concepts={"gnn": Concept("gnn", "GNN"), "nc": Concept("nc", "NC")},
    ...                     relations=[Relation("p", "used-for", "abstract", 0, 4, "GNNs", 18, 37,
    ...                                "node classification", s, "model", head_concept="gnn",
    ...                                tail_concept="nc")])
    >>> e = relation_vis_edges(kg, {"gnn", "nc"})[0]
    >>> e["from"], e["to"], e["arrows"], e["kind"]
    ('concept:gnn', 'concept:nc', 'to', 'relation-used-for')
    >>> print(e["title"])
    GNN used-for NC: stated in 1 paper
    <BLANKLINE>
    “GNNs are used for node classification.”
    — p
    """
    shown = set(concepts)
    edges = []
    for (rtype, head, tail), edge in kg.relation_edges.items():
        if head not in shown or tail not in shown:
            continue
        first = min(edge.evidence)
        paper = kg.papers.get(first)
        source = short(paper.title, 70) if paper is not None and paper.title else first
        n = len(edge.evidence)
        h, t = kg.concepts[head].label, kg.concepts[tail].label
        more = f"\n(and {plural(n - 1, 'more paper')})" if n > 1 else ""
        edges.append({
            "from": concept_node(head), "to": concept_node(tail), "kind": edge_kind(rtype),
            "relation": rtype, "value": n,
            "arrows": "" if rtype in SYMMETRIC_RELATION_TYPES else "to",
            "color": {"color": RELATION_COLORS[rtype]},
            "title": (f"{h} {rtype} {t}: stated in {plural(n, 'paper')}\n\n"
                      f"“{snippet(edge.evidence[first], 300)}”\n— {source}{more}"),
            "note": f"{h} {rtype} {t}: “{snippet(edge.evidence[first], 200)}”",
        })
    return edges
