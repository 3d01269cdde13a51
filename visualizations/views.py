"""The named views that ``kg viz --view`` and ``kg build`` write.

Each ``*_view`` function returns a :class:`~visualizations.page.View`;
:func:`write_view` renders it into one offline HTML file.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from kg.core.model import KnowledgeGraph
from kg.stores.graph import paper_node
from queries import bridging
from queries.bridging import DEFAULT_HUB_SHARE, hubs
from visualizations.bridges import bridge_legend, bridge_network
from visualizations.concept_map import (
    DEFAULT_MAX_CONCEPTS,
    clusters_overview,
    concept_map_network,
)
from visualizations.details import plural
from visualizations.focus import DEFAULT_MAX_NODES as DEFAULT_FOCUS_NODES
from visualizations.focus import describe, focus_network, focus_overview
from visualizations.networks import paper_concept_network, shared_concepts_overview
from visualizations.page import View, render, write_page
from visualizations.style import short
from visualizations.years import color_by_year

__all__ = [
    "PAGE_NODES", "VIEWS", "bridge_view", "concepts_view", "default_page", "focus_view",
    "graph_view", "make_view", "write_view",
]

VIEWS = ("graph", "concepts", "focus", "bridge")


#: above this many nodes, the default page keeps the concepts that matter (see graph_view)
PAGE_NODES = 400


def graph_view(
    kg: KnowledgeGraph, *, min_papers: int = 1, max_nodes: int | None = None,
    color_by: str = "type", hub_share: float = DEFAULT_HUB_SHARE,
) -> View:
    """The paper–concept view: which papers share which concepts.

    A graph that would show more than :data:`PAGE_NODES` nodes is cut to that many
    by default (``max_nodes`` sets another cap): hubs (concepts in more than
    ``hub_share`` of the papers) are left out, concepts are kept by paper count
    with the papers that mention most of them, positions are computed before the
    page is written and a label is drawn only where it overlaps no other label
    or node. The page says what it left out and how to see more.
    ``color_by="year"`` colours papers by year and concepts by their papers'
    mean year (the legend then filters by year).

    Examples
    --------
    >>> from kg.core.model import KnowledgeGraph
    >>> graph_view(KnowledgeGraph()).title
    'Papers and the concepts they share'
    """
    everything = len(kg.papers) + sum(1 for c in kg.concept_papers
                                      if len(kg.concept_papers[c]) >= min_papers)
    large = everything > (max_nodes or PAGE_NODES)
    hub_ids = _hubs(kg, hub_share) if large else set()
    net = paper_concept_network(kg, min_papers=min_papers,
                                max_nodes=max_nodes or (PAGE_NODES if large else everything),
                                exclude=hub_ids)
    n_papers = sum(1 for n in net.nodes if n["kind"] == "paper")
    n_shared = sum(1 for n in net.nodes if n["kind"] == "concept" and n["degree"] > 1)
    left_out = len(kg.papers) - n_papers
    subtitle = (f"{plural(n_papers, 'paper')} · {plural(len(net.nodes) - n_papers, 'concept')}"
                f" ({n_shared} shared)"
                + (f" · {left_out} papers without a shown concept left out" if left_out else ""))
    if large:  # boxes of titles would cover the concepts: papers are squares named on hover
        for n in net.nodes:
            if n["kind"] == "paper":
                n["label"] = ""
            else:  # labels readable when the whole graph is in view, bigger for bigger concepts
                n["font"] = dict(n["font"], size=round(min(64, 18 + 5 * n["degree"] ** 0.5)),
                                 strokeWidth=4)
    legend = color_by_year(kg, net) if color_by == "year" else []
    note = _left_out_note(kg, net, hub_ids, hub_share, min_papers) if large else ""
    return View(
        net, title="Papers and the concepts they share", subtitle=subtitle, legend=legend,
        overview=shared_concepts_overview(kg, net),
        hidden_edges={"shares"} if len(net.nodes) > 400 or large else set(),
        note=note, fixed_layout=large, declutter=large,
        help=("Blue boxes are papers, dots are concepts (size: number of papers). Big, bold "
              "concepts are shared by several papers; dashed lines join papers that share "
              "concepts. Click a node to see its links and the sentences behind them."),
    )


def _hubs(kg: KnowledgeGraph, share: float) -> set[str]:
    return hubs({c: len(ps) for c, ps in kg.concept_papers.items()}, len(kg.papers), share)


def _left_out_note(kg: KnowledgeGraph, net: object, hub_ids: set[str], hub_share: float,
                   min_papers: int) -> str:
    """What a cut-down page leaves out, and how to see more."""
    nodes = net.nodes  # type: ignore[attr-defined]
    n_papers = sum(1 for n in nodes if n["kind"] == "paper")
    n_concepts = len(nodes) - n_papers
    shown = [n for n in nodes if n["kind"] == "concept"]
    least = min((len(kg.concept_papers[n["id"].removeprefix("concept:")]) for n in shown),
                default=0)
    hub_names = sorted(hub_ids, key=lambda c: (-len(kg.concept_papers[c]), c))
    parts = [f"Showing {n_papers} of {len(kg.papers)} papers and {n_concepts} of "
             f"{len(kg.concept_papers)} concepts: the concepts in most papers "
             f"(here at least {least}) and the papers that mention most of them."]
    if hub_ids:
        names = ", ".join(kg.concepts[c].label for c in hub_names[:6])
        parts.append(f"Left out as hubs (in more than {hub_share:.0%} of the papers): {names}"
                     + (f" and {len(hub_names) - 6} more" if len(hub_names) > 6 else "") + ".")
    parts.append("Labels that would overlap are hidden: zoom, hover or search to read them.")
    parts.append("See more: kg viz OUT --min-papers N --max-nodes N, or "
                 "kg viz OUT --focus TOPIC" + (" (fewer: --min-papers "
                                                 f"{max(least, min_papers) + 1})" if least else "")
                 + ".")
    return " ".join(parts)


def write_view(view: View, path: Path) -> None:
    """Render ``view`` and write it to ``path`` atomically."""
    write_page(render(view), path)


def default_page(
    kg: KnowledgeGraph, path: Path, *, min_papers: int = 1, max_nodes: int | None = None
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
    connectors: Sequence[str | dict] = (), limit: int = 40,
) -> View:
    """Two topics, the papers that mention both, and what connects them.

    By default the answer of :func:`queries.bridging.bridges` is drawn: its
    ranked bridges, and its connectors with their papers. ``bridges`` (ranked
    rows, ``id`` first of all) and ``connectors`` replace it.
    """
    result = bridging.bridges(kg, topic_a, topic_b, limit=limit)
    a, b = set(result["a"]["concept_ids"]), set(result["b"]["concept_ids"])
    if bridges is None:
        rows, connectors = result["bridges"], result["connectors"]
    else:
        rows = bridges
    net = bridge_network(kg, a, b, rows, connectors, limit=limit)
    n = sum(1 for node in net.nodes if node.get("group") == "bridge")
    la, lb = result["a"]["label"], result["b"]["label"]
    joined = sum(1 for c in connectors if not isinstance(c, str))
    subtitle = (f"{plural(n, 'paper')} mention{'s' if n == 1 else ''} both topics"
                + (f" (best {limit} shown)" if len(rows) > limit else ""))
    if joined:
        subtitle += f" · {plural(joined, 'connecting concept')}"
    if not rows and not connectors:
        subtitle += " · the corpus does not connect them"
    return View(
        net, title=f"Bridges: {short(la, 30)} ↔ {short(lb, 30)}", subtitle=subtitle,
        legend=bridge_legend(la, lb, connectors=bool(connectors)),
        overview={"heading": "bridge papers, best first", "sections": [
            {"node": paper_node(r["id"]), "items": []} for r in rows[:limit]],
            "empty": "No paper mentions both topics."},
        help=("Topic A's concepts are on the left, topic B's on the right; the papers in the "
              "middle mention both. Yellow concepts connect papers of each side (boxes "
              "beside them). Click a paper to read the sentences."),
    )


def make_view(kg: KnowledgeGraph, view: str, **options: object) -> View:
    """The view named ``view`` (one of :data:`VIEWS`) with its options.

    Examples
    --------
    >>> from kg.core.model import KnowledgeGraph
    >>> make_view(KnowledgeGraph(), "concepts").title
    'Concept map'
    """
    makers = {"graph": graph_view, "concepts": concepts_view, "focus": focus_view,
              "bridge": bridge_view}
    return makers[view](kg, **options)
