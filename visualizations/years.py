"""Time on a page: colour by year (VOSviewer's overlay) and the papers of some years only.

:func:`color_by_year` recolours a paper–concept network: each paper by its
year, each concept by the mean year of the shown papers that mention it, on
one scale from the first year (blue) to the last (yellow); the legend then has
one entry per year, which also filters by year. :func:`papers_of_years` cuts a
model down to the papers of a year, a span of years or a venue (``kg viz
--year/--since/--until/--venue``).
"""

from __future__ import annotations

from pyvis.network import Network

from kg.core.model import KnowledgeGraph
from queries.filters import PaperFilter

__all__ = ["YEAR_SCALE", "color_by_year", "papers_of_years", "year_color"]

#: from the first year to the last (viridis-like, readable on white)
YEAR_SCALE = ["#3b528b", "#21918c", "#5ec962", "#b5de2b", "#e8c81e"]
NO_YEAR = "#9aa5b1"


def year_color(year: float, first: int, last: int) -> str:
    """The colour of ``year`` on the scale from ``first`` to ``last``.

    Examples
    --------
    >>> year_color(2024, 2024, 2025), year_color(2025, 2024, 2025)
    ('#3b528b', '#e8c81e')
    """
    if last <= first:
        return YEAR_SCALE[0]
    t = min(1.0, max(0.0, (year - first) / (last - first)))
    return YEAR_SCALE[round(t * (len(YEAR_SCALE) - 1))]


def color_by_year(kg: KnowledgeGraph, net: Network) -> list[dict]:
    """Colour ``net``'s papers by year and concepts by their papers' mean year; the legend.

    Each node's ``group`` becomes its (mean, rounded) year, so the legend's
    checkboxes show and hide years.

    Examples
    --------
    >>> from kg.core.model import Paper
    >>> from pyvis.network import Network
    >>> kg = KnowledgeGraph(papers={"a": Paper("a", "A", "x", year=2024)})
    >>> net = Network(); net.nodes = [{"id": "paper:a", "kind": "paper", "color": "#000"}]
    >>> net.edges = []
    >>> [e["label"] for e in color_by_year(kg, net)], net.nodes[0]["color"]
    (['2024'], '#3b528b')
    """
    years = {n["id"]: kg.papers[n["id"].removeprefix("paper:")].year
             for n in net.nodes if n["kind"] == "paper"}
    known = sorted({y for y in years.values() if y is not None})
    if not known:
        return []
    first, last = known[0], known[-1]
    around: dict[str, list[int]] = {}
    for e in net.edges:
        if e.get("kind") != "mentions":
            continue
        for a, b in ((e["from"], e["to"]), (e["to"], e["from"])):
            if years.get(a) is not None and b not in years:
                around.setdefault(b, []).append(years[a])  # type: ignore[arg-type]
    legend: dict[str, dict] = {}
    for n in net.nodes:
        got = [years[n["id"]]] if n["id"] in years and years[n["id"]] is not None \
            else around.get(n["id"], [])
        if not got:
            key, color = "no year", NO_YEAR
        else:
            mean = sum(got) / len(got)
            key, color = str(round(mean)), year_color(round(mean), first, last)
        n["color"], n["group"] = color, key
        legend.setdefault(key, {"key": key, "label": key, "shape": "dot",
                                "color": year_color(int(key), first, last)
                                if key != "no year" else NO_YEAR})
    return [legend[k] for k in sorted(legend)]


def papers_of_years(kg: KnowledgeGraph, keep: PaperFilter) -> KnowledgeGraph:
    """The model cut down to the papers ``keep`` allows (with their mentions).

    Examples
    --------
    >>> from kg.core.model import Paper
    >>> kg = KnowledgeGraph(papers={"a": Paper("a", "A", "x", year=2024),
    ...                             "b": Paper("b", "B", "x", year=2025)})
    >>> sorted(papers_of_years(kg, PaperFilter(year=2025)).papers)
    ['b']
    """
    if not keep.active:
        return kg
    papers = {pid: p for pid, p in kg.papers.items() if keep.allows(p.year, p.venue)}
    return KnowledgeGraph(papers=papers, concepts=kg.concepts,
                          mentions=[m for m in kg.mentions if m.paper in papers])
