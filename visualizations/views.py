"""The named views that ``kg viz --view`` and ``kg build`` write.

Each ``*_view`` function returns a :class:`~visualizations.page.View`;
:func:`write_view` renders it into one offline HTML file.
"""

from __future__ import annotations

from pathlib import Path

from kg.model import KnowledgeGraph
from visualizations.details import plural
from visualizations.networks import (
    DEFAULT_MAX_NODES,
    paper_concept_network,
    shared_concepts_overview,
)
from visualizations.page import View, render, write_page

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
