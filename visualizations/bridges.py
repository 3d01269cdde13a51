"""The bridge view: two topics, the papers between them and the concepts that connect them.

The drawing of the bridges question (:mod:`queries.bridging`, ``kg bridge``):
:func:`bridge_network` takes the two resolved topics (concept-id sets, each a
concept with its narrower concepts), the ranked bridge rows and the
connectors, and lays them out left (topic A), middle (bridge papers, then the
connecting concepts) and right (topic B); a connector's papers stand between
their side and the middle.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from pyvis.network import Network

from kg.core.model import KnowledgeGraph
from kg.stores.graph import concept_node, paper_node
from visualizations.details import concept_tooltip, mention_tooltip, paper_tooltip
from visualizations.networks import new_network, wrap_label
from visualizations.style import SIDE_COLORS, node_size, short, snippet

__all__ = ["COLUMN_X", "PAPER_X", "ROW_GAP", "bridge_legend", "bridge_network"]

ROW_GAP = 70
COLUMN_X = {"a": -480, "bridge": 0, "b": 480}
#: where a connector's papers stand: between their side and the middle
PAPER_X = {"a": -240, "via": 0, "b": 240}


def bridge_network(
    kg: KnowledgeGraph, a: set[str], b: set[str], bridges: Sequence[dict],
    connectors: Iterable[str | dict] = (), *, limit: int = 40,
) -> Network:
    """Topic A's concepts on the left, B's on the right, bridge papers in the middle.

    Parameters
    ----------
    kg : KnowledgeGraph
    a, b : set of str
        Concept ids of the two topics (each a concept and its narrower ones).
    bridges : sequence of dict
        Ranked rows with at least ``id`` (a paper id), best first.
    connectors : iterable of str or dict
        Concepts that connect the sides indirectly, drawn in the middle column
        below the papers (in the connector colour). Either concept ids, or the
        ``connectors`` of :func:`queries.bridging.bridges`: then the papers of
        each connector's path are drawn too, on their side, linked to the topic
        concept and the connecting concept (a dashed link when the paper
        mentions a narrower concept of it); a ``"path"`` connector draws its
        whole path.
    limit : int
        Draw at most this many bridge papers.

    Examples
    --------
    >>> from kg.core.model import Concept, KnowledgeGraph, Mention, Paper
    >>> m = lambda p, c: Mention(p, c, "abstract", 0, 1, "x", "x.", "lexicon")
    >>> kg = KnowledgeGraph(papers={p: Paper(p, p, "x.") for p in "pq"},
    ...     concepts={c: Concept(c, c) for c in ("gnn", "llm")},
    ...     mentions=[m("p", "gnn"), m("p", "llm"), m("q", "gnn")])
    >>> net = bridge_network(kg, {"gnn"}, {"llm"}, [{"id": "p", "score": 1.2}])
    >>> sorted(n["group"] for n in net.nodes), len(net.edges)
    (['a', 'b', 'bridge'], 2)
    """
    rows = [r for r in bridges if r["id"] in kg.papers][:limit]
    papers = [r["id"] for r in rows]
    middle, side_papers, via = _connector_parts(kg, connectors, a, b, set(papers))
    drawn = papers + list(side_papers)
    linked = {c for p in drawn for c in kg.paper_concepts.get(p, ())}
    side_a = sorted(c for c in a if c in linked or c in kg.concept_papers)
    side_b = sorted(c for c in b if c in linked or c in kg.concept_papers)
    side_a = [c for c in side_a if c in linked] or side_a[:1]
    side_b = [c for c in side_b if c in linked] or side_b[:1]
    nodes = []
    for side, ids in (("a", side_a), ("b", side_b)):
        for i, cid in enumerate(ids):
            nodes.append(_side_concept(kg, cid, side, COLUMN_X[side], _y(i, len(ids))))
    for i, row in enumerate(rows):
        pid = row["id"]
        score = row.get("score")
        nodes.append({
            "id": paper_node(pid), "label": wrap_label(short(kg.papers[pid].title, 64)),
            "full": kg.papers[pid].title, "kind": "paper", "group": "bridge",
            "degree": len(kg.paper_concepts.get(pid, ())),
            "title": paper_tooltip(kg, pid) + (f"\n\nbridge score {score}" if score else ""),
            "shape": "box", "color": SIDE_COLORS["bridge"], "font": {"color": "#ffffff"},
            "widthConstraint": {"maximum": 200}, "x": COLUMN_X["bridge"],
            "y": _y(i, len(rows) + len(middle)),
        })
    for j, cid in enumerate(middle):
        nodes.append(_side_concept(kg, cid, "connector", COLUMN_X["bridge"],
                                   _y(len(rows) + j, len(rows) + len(middle))))
    columns: dict[str, list[str]] = {}
    for pid, side in side_papers.items():
        columns.setdefault(side, []).append(pid)
    for side, pids in columns.items():
        for i, pid in enumerate(pids):
            y = (_y(len(rows) + len(middle) + i, len(rows) + len(middle) + len(pids))
                 if side == "via" else 1.5 * _y(i, len(pids)))  # boxes are tall
            nodes.append(_side_paper(kg, pid, side, PAPER_X[side], y))
    shown = {n["id"] for n in nodes}
    first = kg.first_evidence
    edges = []
    for pid in drawn:
        for cid, count in sorted(kg.paper_concepts.get(pid, {}).items()):
            if concept_node(cid) in shown:
                edges.append({
                    "from": paper_node(pid), "to": concept_node(cid), "kind": "mentions",
                    "value": count, "color": {"color": "#829ab1"},
                    "title": mention_tooltip(kg, pid, cid, count, first[(pid, cid)]),
                    "note": f"“{snippet(first[(pid, cid)], 200)}”",
                })
    for (pid, cid), narrower in sorted(via.items()):
        if concept_node(cid) in shown and (pid, narrower) in first:
            edges.append({
                "from": paper_node(pid), "to": concept_node(cid), "kind": "mentions",
                "value": 1, "dashes": True, "color": {"color": SIDE_COLORS["connector"]},
                "title": (f"{short(kg.papers[pid].title, 80)}\nmentions "
                          f"{kg.concepts[narrower].label}, under {kg.concepts[cid].label}"
                          f"\n\n“{snippet(first[(pid, narrower)], 280)}”"),
                "note": f"“{snippet(first[(pid, narrower)], 200)}”",
            })
    net = new_network()
    net.nodes, net.edges = nodes, edges
    net.node_ids = [n["id"] for n in nodes]
    return net


def _connector_parts(
    kg: KnowledgeGraph, connectors: Iterable[str | dict], a: set[str], b: set[str],
    bridge_papers: set[str],
) -> tuple[list[str], dict[str, str], dict[tuple[str, str], str]]:
    """Middle concepts, the connector papers with their column, and broader-only links.

    Returns the connecting concept ids (sorted), ``{paper id: "a" | "b" | "via"}``
    for the papers of connector paths, and ``{(paper, concept): narrower concept}``
    for a paper that reaches a connecting concept through a narrower one.
    """
    middle: set[str] = set()
    papers: dict[str, str] = {}
    via: dict[tuple[str, str], str] = {}
    for c in connectors:
        if isinstance(c, str):
            middle.add(c)
            continue
        steps = c.get("path", [])
        concepts = [s["id"] for s in steps if s["kind"] == "concept"]
        middle.update(concepts[1:-1])
        path_papers = [s["id"] for s in steps if s["kind"] == "paper"]
        for i, pid in enumerate(path_papers):
            side = "a" if i == 0 else "b" if i == len(path_papers) - 1 else "via"
            if pid in kg.papers and pid not in bridge_papers:
                papers.setdefault(pid, side)
        for i, step in enumerate(steps):
            if step["kind"] != "paper" or step["id"] not in kg.papers:
                continue
            mentioned = kg.paper_concepts.get(step["id"], {})
            for j in (i - 1, i + 1):
                cid = steps[j]["id"] if 0 <= j < len(steps) else None
                if cid and cid not in mentioned and cid in kg.concepts:
                    narrower = sorted(n for n in mentioned if cid in kg.concepts[n].broader)
                    if narrower:
                        via[(step["id"], cid)] = narrower[0]
    return sorted(x for x in middle - a - b if x in kg.concepts), papers, via


def _side_paper(kg: KnowledgeGraph, pid: str, side: str, x: float, y: float) -> dict:
    group = "connector" if side == "via" else side
    return {
        "id": paper_node(pid), "label": wrap_label(short(kg.papers[pid].title, 64)),
        "full": kg.papers[pid].title, "kind": "paper", "group": group,
        "degree": len(kg.paper_concepts.get(pid, ())),
        "title": paper_tooltip(kg, pid) + "\n\nconnects the topics through a shared concept",
        "shape": "box", "color": SIDE_COLORS[group], "font": {"color": "#ffffff"},
        "widthConstraint": {"maximum": 180}, "x": x, "y": y,
    }


def _y(i: int, n: int) -> float:
    return (i - (n - 1) / 2) * ROW_GAP


def _side_concept(kg: KnowledgeGraph, cid: str, side: str, x: float, y: float) -> dict:
    c = kg.concepts[cid]
    n = len(kg.concept_papers.get(cid, ()))
    return {
        "id": concept_node(cid), "label": c.label, "full": c.label, "kind": "concept",
        "group": side, "degree": n, "title": concept_tooltip(kg, cid), "shape": "dot",
        "size": node_size(n), "color": SIDE_COLORS[side], "x": x, "y": y,
        "font": {"size": 16, "color": "#102a43", "strokeWidth": 4, "strokeColor": "#ffffff"},
    }


def bridge_legend(a_label: str, b_label: str, *, connectors: bool = False) -> list[dict]:
    """Legend of a bridge page: the two topics, the bridge papers (and connectors)."""
    legend = [
        {"key": "a", "label": f"topic A: {short(a_label, 30)}", "color": SIDE_COLORS["a"],
         "shape": "dot"},
        {"key": "bridge", "label": "bridge papers", "color": SIDE_COLORS["bridge"],
         "shape": "box"},
        {"key": "b", "label": f"topic B: {short(b_label, 30)}", "color": SIDE_COLORS["b"],
         "shape": "dot"},
    ]
    if connectors:
        legend.append({"key": "connector", "label": "connecting concepts",
                       "color": SIDE_COLORS["connector"], "shape": "dot"})
    return legend
