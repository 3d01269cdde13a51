"""Colours and sizes shared by every view."""

from __future__ import annotations

TYPE_COLORS = {
    "paper": "#4e79a7",
    "method": "#f28e2b",
    "task": "#59a14f",
    "dataset": "#b07aa1",
    "metric": "#edc948",
    "concept": "#e15759",
}
TYPE_SHAPES = {"paper": "box"}


def node_size(n_papers: int) -> float:
    """Node size grows with the square root of the number of papers."""
    return 10 + 6 * n_papers ** 0.5


def snippet(text: str, limit: int = 300) -> str:
    """The first ``limit`` characters of ``text``, cut at a word."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    return text[:limit].rsplit(" ", 1)[0] + "…"
