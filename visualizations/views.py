"""The named views that ``kg viz --view`` and ``kg build`` write."""

from __future__ import annotations

from pathlib import Path

from kg.model import KnowledgeGraph
from visualizations.networks import DEFAULT_MAX_NODES, paper_concept_network
from visualizations.page import render, write_page


def default_page(
    kg: KnowledgeGraph, path: Path, *, min_papers: int = 1, max_nodes: int = DEFAULT_MAX_NODES
) -> None:
    """Write the paper–concept page: which papers share which concepts."""
    net = paper_concept_network(kg, min_papers=min_papers, max_nodes=max_nodes)
    n_papers = sum(1 for n in net.nodes if n["kind"] == "paper")
    subtitle = (f"{n_papers} papers · {len(net.nodes) - n_papers} concepts · "
                f"{len(net.edges)} links — hover for evidence, click to select")
    write_page(render(net, title="Papers and the concepts they share", subtitle=subtitle), path)
