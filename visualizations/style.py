"""Colours, sizes and text trimming shared by every view."""

from __future__ import annotations

__all__ = [
    "CLUSTER_COLORS", "EDGE_COLOR", "OTHER_COLOR", "RELATION_COLORS", "SIDE_COLORS",
    "TYPE_COLORS", "TYPE_SHAPES",
    "cluster_color", "node_size", "short", "snippet",
]

TYPE_COLORS = {
    "paper": "#4e79a7",
    "method": "#f28e2b",
    "task": "#59a14f",
    "dataset": "#b07aa1",
    "metric": "#d4a017",
    "concept": "#e15759",
}
TYPE_SHAPES = {"paper": "box"}
#: Categorical colours for clusters (Tableau 20 without the paper blue); the last is "other".
CLUSTER_COLORS = (
    "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#b07aa1", "#edc948", "#ff9da7", "#9c755f",
    "#4e79a7", "#8cd17d", "#86bcb6", "#f1ce63", "#d37295", "#a0cbe8", "#ffbe7d", "#b6992d",
    "#499894", "#d4a6c8", "#fabfd2",
)
OTHER_COLOR = "#bab0ac"
#: Colours of the two sides of a bridge view, and of what connects them.
SIDE_COLORS = {"a": "#e15759", "b": "#59a14f", "bridge": "#4e79a7", "connector": "#edc948"}
EDGE_COLOR = "#9aa5b1"
#: One colour per relation type between concepts (dark enough to read over the grey links).
RELATION_COLORS = {
    "used-for": "#1f77b4", "evaluate-for": "#9467bd", "compare": "#d62728",
    "conjunction": "#17becf", "hyponym-of": "#2ca02c", "part-of": "#8c564b",
    "feature-of": "#e377c2",
}


def node_size(n_papers: int) -> float:
    """Node size grows with the square root of the number of papers.

    Examples
    --------
    >>> node_size(1), node_size(4)
    (14.0, 20.0)
    """
    return 8 + 6 * n_papers ** 0.5


def cluster_color(index: int) -> str:
    """Colour of the ``index``-th cluster (0 = largest); late clusters share one grey.

    Examples
    --------
    >>> cluster_color(0), cluster_color(500)
    ('#f28e2b', '#bab0ac')
    """
    return CLUSTER_COLORS[index] if index < len(CLUSTER_COLORS) else OTHER_COLOR


def snippet(text: str, limit: int = 300) -> str:
    """The first ``limit`` characters of ``text``, cut at a word.

    Examples
    --------
    >>> snippet("one two three", 8)
    'one two…'
    """
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    return text[:limit].rsplit(" ", 1)[0] + "…"


def short(text: str, limit: int = 40) -> str:
    """``text`` on one line, cut to ``limit`` characters with an ellipsis.

    Examples
    --------
    >>> short("graph neural networks for molecules", 20)
    'graph neural networ…'
    """
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"
