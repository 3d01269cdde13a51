"""The named views that ``kg viz --view`` and ``kg build`` write.

Each ``*_view`` function returns a :class:`~visualizations.page.View`;
:func:`write_view` renders it into one offline HTML file.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from kg.graph import paper_node
from kg.model import KnowledgeGraph
from visualizations.bridges import bridge_legend, bridge_network, direct_bridges
from visualizations.concept_map import (
    DEFAULT_MAX_CONCEPTS,
    clusters_overview,
    concept_map_network,
)
from visualizations.details import plural
from visualizations.focus import DEFAULT_MAX_NODES as DEFAULT_FOCUS_NODES
from visualizations.focus import describe, focus_network, focus_overview
from visualizations.networks import (
    DEFAULT_MAX_NODES,
    paper_concept_network,
    shared_concepts_overview,
)
from visualizations.page import View, render, write_page
from visualizations.style import short

VIEWS = ("graph", "concepts", "focus", "bridge")


def graph_view(
    kg: KnowledgeGraph, *, min_papers: int = 1, max_nodes: int = DEFAULT_MAX_NODES
) -> View:
    """The paper–concept view: which papers share which concepts.

    Examples
    --------
    >>> from kg.model import KnowledgeGraph
    >>> graph_view(KnowledgeGraph()).title
    'Papers and the concepts they share'
    """
    net = paper_concept_network(kg, min_papers=min_papers, max_nodes=max_nodes)
    n_papers = sum(1 for n in net.nodes if n["kind"] == "paper")
    n_shared = sum(1 for n in net.nodes if n["kind"] == "concept" and n["degree"] > 1)
    left_out = len(kg.papers) - n_papers
    subtitle = (f"{plural(n_papers, 'paper')} · {plural(len(net.nodes) - n_papers, 'concept')}"
                f" ({n_shared} shared)"
                + (f" · {left_out} papers without a shown concept left out" if left_out else ""))
    big = len(net.nodes) > 400
    return View(
        net, title="Papers and the concepts they share", subtitle=subtitle,
        overview=shared_concepts_overview(kg, net),
        hidden_edges={"shares"} if big else set(),
        help=("Blue boxes are papers, dots are concepts (size: number of papers). Big, bold "
              "concepts are shared by several papers; dashed lines join papers that share "
              "concepts. Click a node to see its links and the sentences behind them."),
    )


def write_view(view: View, path: Path) -> None:
    """Render ``view`` and write it to ``path`` atomically."""
    write_page(render(view), path)


def default_page(
    kg: KnowledgeGraph, path: Path, *, min_papers: int = 1, max_nodes: int = DEFAULT_MAX_NODES
) -> None:
    """Write the paper–concept page that ``kg build`` puts in ``OUT/graph.html``."""
    write_view(graph_view(kg, min_papers=min_papers, max_nodes=max_nodes), path)


def concepts_view(
    kg: KnowledgeGraph, *, min_papers: int = 1, max_nodes: int = DEFAULT_MAX_CONCEPTS
) -> View:
    """The concept map: concepts linked by co-occurrence, coloured by cluster."""
    net, legend = concept_map_network(kg, min_papers=min_papers, max_nodes=max_nodes)
    n_clusters = sum(1 for e in legend if e["key"] != "unlinked")
    subtitle = (f"{plural(len(net.nodes), 'concept')} · {plural(len(net.edges), 'link')} · "
                f"{plural(n_clusters, 'cluster')}")
    return View(
        net, title="Concept map", subtitle=subtitle, legend=legend,
        overview=clusters_overview(net, legend),
        help=("Concepts are linked when papers mention them together (wider: more papers) "
              "and coloured by cluster (Louvain communities). Size: number of papers. "
              "Click a concept to see what it travels with."),
    )


def focus_view(
    kg: KnowledgeGraph, text: str, *, depth: int = 2, min_papers: int = 1,
    max_nodes: int = DEFAULT_FOCUS_NODES,
) -> View:
    """Everything within ``depth`` paper–concept steps of a concept or a paper."""
    net, focus = focus_network(kg, text, depth=depth, min_papers=min_papers,
                               max_nodes=max_nodes)
    return View(
        net, title=f"Around “{short(focus.label, 50)}”", subtitle=describe(focus, net, depth),
        overview=focus_overview(net, focus),
        help=("The focus has a dark ring (a concept stands with its narrower concepts). "
              "Click a node to see its links and the sentences behind them."),
    )


def bridge_view(
    kg: KnowledgeGraph, topic_a: str, topic_b: str, *, bridges: list[dict] | None = None,
    connectors: Sequence[str] = (), limit: int = 40,
) -> View:
    """Two topics, the papers that mention both, and what connects them.

    ``bridges`` are ranked rows (``id`` first of all) from the bridges query;
    without them, :func:`~visualizations.bridges.direct_bridges` ranks the
    papers that mention both topics.
    """
    from queries.resolve import resolve_concept

    ca, cb = resolve_concept(kg, topic_a), resolve_concept(kg, topic_b)
    a, b = kg.descendants(ca.id), kg.descendants(cb.id)
    rows = direct_bridges(kg, a, b) if bridges is None else bridges
    net = bridge_network(kg, a, b, rows, connectors, limit=limit)
    n = sum(1 for node in net.nodes if node["kind"] == "paper")
    return View(
        net, title=f"Bridges: {short(ca.label, 30)} ↔ {short(cb.label, 30)}",
        subtitle=f"{plural(n, 'paper')} mention{'s' if n == 1 else ''} both topics"
                 + (f" (best {limit} shown)" if len(rows) > limit else ""),
        legend=bridge_legend(ca.label, cb.label, connectors=bool(connectors)),
        overview={"heading": "bridge papers, best first", "sections": [
            {"node": paper_node(r["id"]), "items": []} for r in rows[:limit]],
            "empty": "No paper mentions both topics."},
        help=("Topic A's concepts are on the left, topic B's on the right; the papers in the "
              "middle mention both. Click a paper to read the sentences."),
    )


def make_view(kg: KnowledgeGraph, view: str, **options: object) -> View:
    """The view named ``view`` (one of :data:`VIEWS`) with its options.

    Examples
    --------
    >>> from kg.model import KnowledgeGraph
    >>> make_view(KnowledgeGraph(), "concepts").title
    'Concept map'
    """
    makers = {"graph": graph_view, "concepts": concepts_view, "focus": focus_view,
              "bridge": bridge_view}
    return makers[view](kg, **options)
