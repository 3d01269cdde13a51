"""Concepts rising and falling between two years (``kg trends``), any engine.

For the papers of year *Y1* and of year *Y2* (by default the first and the
last year of the graph), each concept's *share* is the fraction of that
year's papers that mention it directly; its *change* is ``share(Y2) −
share(Y1)`` (in share points, rounded to 6 decimals). A concept is listed
when at least ``min_papers`` papers of one of the two years mention it (the
minimum support), and hubs are left out: concepts mentioned by more than
``hub_share`` of the two years' papers (and more than
:data:`queries.bridging.HUB_MIN_PAPERS`), such as "accuracy" or
"state-of-the-art", which move with how a year's abstracts are written more
than with what they are about (a note names them). Rising concepts come
first (largest change first), then falling ones (largest fall first); ties
go to the smaller id. Engines fetch only the papers' years and venues and
each concept's papers, so every engine gives the same rows.
"""

from __future__ import annotations

from typing import Any

from kg.core.errors import Messages, NotFoundError
from queries.bridging import DEFAULT_HUB_SHARE, hubs
from queries.engines import engine_for
from queries.filters import paper_filter
from queries.ranking import rounded

__all__ = ["DEFAULT_MIN_PAPERS", "trends"]

#: a concept needs this many papers in one of the two years to be listed
DEFAULT_MIN_PAPERS = 3


def trends(source: Any, *, start: int | None = None, end: int | None = None,
           min_papers: int = DEFAULT_MIN_PAPERS, limit: int = 20,
           hub_share: float = DEFAULT_HUB_SHARE, venue: str | None = None) -> dict:
    """Concepts whose share of papers rose or fell from year ``start`` to year ``end``.

    Returns
    -------
    dict
        ``from``, ``to`` (the years), ``papers_from``, ``papers_to`` (papers of each
        year), ``min_papers``, ``rows`` (``trend`` rising|falling, ``id, label, type,
        papers_from, papers_to, share_from, share_to, change``; at most ``limit`` of
        each trend) and ``notes``.

    Raises
    ------
    NotFoundError
        When either year has no paper (the message lists the years there are).

    Examples
    --------
    >>> from kg.core.model import Concept, KnowledgeGraph, Mention, Paper
    >>> m = lambda p, c: Mention(p, c, "abstract", 0, 1, c, c + ".", "lexicon")
    >>> kg = KnowledgeGraph(
    ...     papers={"a": Paper("a", "A", "x", year=2024), "b": Paper("b", "B", "x", year=2025)},
    ...     concepts={c: Concept(c, c) for c in ("rnn", "llm")},
    ...     mentions=[m("a", "rnn"), m("b", "llm")])
    >>> [(r["trend"], r["id"], r["change"]) for r in trends(kg, min_papers=1)["rows"]]
    [('rising', 'llm', 1.0), ('falling', 'rnn', -1.0)]
    """
    engine = engine_for(source)
    keep = paper_filter(venue=venue)
    years: dict[str, int] = {p: y for p, (y, v) in engine.paper_meta().items()
                             if y is not None and keep.allows(y, v)}
    present = sorted(set(years.values()))
    start = present[0] if start is None and present else start
    end = present[-1] if end is None and present else end
    a = {p for p, y in years.items() if y == start}
    b = {p for p, y in years.items() if y == end}
    if not present:
        raise NotFoundError(Messages.TREND_NO_YEARS)
    if not a or not b or start == end:
        raise NotFoundError(Messages.TREND_YEARS.format(
            start=start, end=end, years=", ".join(map(str, present)) or "none"))
    table = engine.concept_table()
    papers_of = engine.papers_of(sorted(engine.paper_counts()))
    both = a | b
    counts = {c: len(ps & both) for c, ps in papers_of.items()}
    hub_ids = hubs(counts, len(both), hub_share)
    rows: list[dict[str, Any]] = []
    for c, ps in papers_of.items():
        na, nb = len(ps & a), len(ps & b)
        if max(na, nb) < min_papers or c in hub_ids or c not in table.concepts:
            continue
        sa, sb = rounded(na / len(a)), rounded(nb / len(b))
        change = rounded(sb - sa)
        if change:
            rows.append({"trend": "rising" if change > 0 else "falling", "id": c,
                         "label": table.label(c), "type": table.concepts[c].type,
                         "papers_from": na, "papers_to": nb, "share_from": sa,
                         "share_to": sb, "change": change})
    rising = sorted((r for r in rows if r["change"] > 0), key=lambda r: (-r["change"], r["id"]))
    falling = sorted((r for r in rows if r["change"] < 0), key=lambda r: (r["change"], r["id"]))
    notes = []
    if hub_ids:
        named = sorted(hub_ids, key=lambda c: (-counts[c], c))
        notes.append(f"{len(named)} hub concept{'s' if len(named) != 1 else ''} (in more than "
                     f"{hub_share:.0%} of the papers) left out: "
                     + ", ".join(table.label(c) for c in named[:8] if c in table.concepts)
                     + (", …" if len(named) > 8 else ""))
    return {"from": start, "to": end, "papers_from": len(a), "papers_to": len(b),
            "min_papers": min_papers, "rows": rising[:limit] + falling[:limit],
            "notes": notes}
