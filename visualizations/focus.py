"""The focus view: one concept or paper and what lies around it.

A concept stands with its narrower concepts (asking for "graph neural
networks" also shows papers about graph attention networks); from there the
view walks the paper–concept links ``depth`` steps out. Relations stated between two of the
concepts shown are typed, directed links (:mod:`visualizations.relation_edges`).
"""

from __future__ import annotations

from dataclasses import dataclass

from pyvis.network import Network

from kg.core.errors import Messages, NotFoundError
from kg.core.model import KnowledgeGraph
from kg.stores.graph import concept_node, paper_node
from queries.engines import engine_for
from queries.topics import resolve
from visualizations.details import mention_tooltip, plural
from visualizations.networks import (
    COMPACT_ABOVE,
    concept_vis_node,
    new_network,
    paper_vis_node,
)
from visualizations.relation_edges import relation_vis_edges
from visualizations.style import snippet

__all__ = [
    "DEFAULT_MAX_NODES", "Focus", "describe", "focus_network", "focus_overview",
    "resolve_focus",
]

DEFAULT_MAX_NODES = 300


@dataclass
class Focus:
    """What a ``--focus`` text named: node ids (``paper:…``/``concept:…``) to start from."""

    label: str
    kind: str  # "paper", "concept", "family" (concepts named with the words) or "text"
    start: list[str]
    #: how a topic text was resolved (queries.topics.Resolution.describe), else ""
    note: str = ""


def resolve_focus(kg: KnowledgeGraph, text: str) -> Focus:
    """A paper id, or a topic (:func:`queries.topics.resolve`): a concept's label, alias or
    acronym (with its narrower concepts), else the concepts whose names contain the
    words, else the papers whose title or abstract says them.

    Raises
    ------
    NotFoundError
        When ``text`` names nothing, or only concepts no paper mentions.

    Examples
    --------
    >>> from kg.core.model import Concept, KnowledgeGraph, Mention, Paper
    >>> kg = KnowledgeGraph(papers={"p1": Paper("p1", "On GNNs", "GNNs.")},
    ...     concepts={"gnn": Concept("gnn", "graph neural network", aliases=["GNN"])},
    ...     mentions=[Mention("p1", "gnn", "abstract", 0, 4, "GNNs", "GNNs.", "acronym")])
    >>> resolve_focus(kg, "p1").start, resolve_focus(kg, "GNNs").start
    (['paper:p1'], ['concept:gnn'])
    """
    if text.strip() in kg.papers:
        pid = text.strip()
        return Focus(kg.papers[pid].title, "paper", [paper_node(pid)])
    engine = engine_for(kg)
    res = resolve(engine, text)
    table = engine.concept_table()
    if res.how == "text":
        return Focus(text.strip(), "text", [paper_node(p) for p in sorted(res.matches)],
                     res.describe(table))
    label = res.label(table)
    below = sorted(c for c in res.members if c in kg.concept_papers)
    if not below:
        raise NotFoundError(Messages.NOT_MENTIONED.format(label=label))
    taken = list(res.taken)
    start = [concept_node(c) for c in taken] + [concept_node(c) for c in below
                                                if c not in set(taken)]
    return Focus(label, res.how, start, res.describe(table))


def focus_network(
    kg: KnowledgeGraph, text: str, *, depth: int = 2, min_papers: int = 1,
    max_nodes: int = DEFAULT_MAX_NODES,
) -> tuple[Network, Focus]:
    """The nodes within ``depth`` paper–concept steps of what ``text`` names.

    Nearer nodes are kept first; within a step, the nodes with the most links
    back to the previous step (then the most-mentioned) go first, until
    ``max_nodes``. Concepts outside the focus mentioned by fewer than
    ``min_papers`` papers are left out. Each node's ``level`` is its distance.

    Examples
    --------
    >>> from kg.core.model import Concept, KnowledgeGraph, Mention, Paper
    >>> m = lambda p, c: Mention(p, c, "abstract", 0, 1, "x", "x.", "lexicon")
    >>> kg = KnowledgeGraph(papers={p: Paper(p, p, "x.") for p in ("p", "q")},
    ...     concepts={c: Concept(c, c) for c in ("gnn", "rl", "llm")},
    ...     mentions=[m("p", "gnn"), m("p", "rl"), m("q", "rl"), m("q", "llm")])
    >>> net, _ = focus_network(kg, "gnn", depth=2)
    >>> sorted(n["id"] for n in net.nodes)
    ['concept:gnn', 'concept:rl', 'paper:p']
    """
    focus = resolve_focus(kg, text)
    level = dict.fromkeys(focus.start, 0)
    frontier = list(focus.start)
    for d in range(1, max(0, depth) + 1):
        links: dict[str, int] = {}
        for node in frontier:
            for nb in _neighbours(kg, node):
                if nb not in level:
                    links[nb] = links.get(nb, 0) + 1
        if min_papers > 1:
            links = {n: k for n, k in links.items()
                     if n.startswith("paper:") or _df(kg, n) >= min_papers}
        ranked = sorted(links, key=lambda n: (-links[n], -_df(kg, n), n))
        room = max(0, max_nodes - len(level))
        frontier = ranked[:room]
        level.update(dict.fromkeys(frontier, d))
        if not frontier:
            break
    net = _network(kg, level, focus)
    return net, focus


def _df(kg: KnowledgeGraph, node: str) -> int:
    if node.startswith("concept:"):
        return len(kg.concept_papers.get(node.removeprefix("concept:"), ()))
    return len(kg.paper_concepts.get(node.removeprefix("paper:"), ()))


def _neighbours(kg: KnowledgeGraph, node: str) -> list[str]:
    if node.startswith("paper:"):
        return [concept_node(c) for c in sorted(kg.paper_concepts.get(node[6:], ()))]
    return [paper_node(p) for p in sorted(kg.concept_papers.get(node[8:], ()))]


def _network(kg: KnowledgeGraph, level: dict[str, int], focus: Focus) -> Network:
    compact = len(level) > COMPACT_ABOVE
    shown = set(level)
    nodes = []
    for node in sorted(level, key=lambda n: (level[n], n)):
        degree = sum(1 for nb in _neighbours(kg, node) if nb in shown)
        if node.startswith("paper:"):
            n = paper_vis_node(kg, node[6:], degree, compact=compact)
        else:
            cid = node[8:]
            n = concept_vis_node(kg, cid, len(kg.concept_papers[cid] & {p[6:] for p in shown
                                                               if p.startswith("paper:")}))
            n["degree"] = degree
        n["level"] = level[node]
        if level[node] == 0:
            n["borderWidth"] = 5
            n["color"] = {"background": n["color"], "border": "#102a43"}
            n["font"] = dict(n.get("font", {}), size=22 if n["kind"] == "concept" else 16)
        nodes.append(n)
    first = kg.first_evidence
    edges = []
    for node in sorted(shown):
        if not node.startswith("paper:"):
            continue
        pid = node[6:]
        for cid, count in sorted(kg.paper_concepts.get(pid, {}).items()):
            if concept_node(cid) in shown:
                near = min(level[node], level[concept_node(cid)]) == 0
                edges.append({
                    "from": node, "to": concept_node(cid), "kind": "mentions", "value": count,
                    "title": mention_tooltip(kg, pid, cid, count, first[(pid, cid)]),
                    "note": f"“{snippet(first[(pid, cid)], 200)}”",
                    "color": {"color": "#52606d" if near else "#c3cad3"},
                })
    for node in sorted(shown):
        if node.startswith("concept:"):
            for b in kg.concepts[node[8:]].broader:
                if concept_node(b) in shown:
                    edges.append({
                        "from": node, "to": concept_node(b), "kind": "broader", "value": 1,
                        "dashes": True, "color": {"color": "#829ab1"},
                        "title": f"{kg.concepts[node[8:]].label} is a kind of "
                                 f"{kg.concepts[b].label}",
                        "note": "narrower → broader",
                    })
    edges += relation_vis_edges(kg, [n[8:] for n in shown if n.startswith("concept:")])
    net = new_network()
    net.nodes, net.edges = nodes, edges
    net.node_ids = [n["id"] for n in nodes]
    return net


def focus_overview(net: Network, focus: Focus, *, per_item: int = 10) -> dict:
    """Panel overview: the nodes one step from the focus, each with what lies beyond it."""
    level = {n["id"]: n["level"] for n in net.nodes}
    beyond: dict[str, list[str]] = {}
    for e in net.edges:
        if e["kind"] != "mentions":
            continue
        for a, b in ((e["from"], e["to"]), (e["to"], e["from"])):
            if level[a] == 1 and level[b] == 2:
                beyond.setdefault(a, []).append(b)
    firsts = [n for n in net.nodes if n["level"] == 1]
    firsts.sort(key=lambda n: (-len(beyond.get(n["id"], ())), n["id"]))
    sections = [{"node": n["id"], "items": sorted(beyond.get(n["id"], []))[:per_item],
                 "more": max(0, len(beyond.get(n["id"], [])) - per_item)} for n in firsts]
    what = "concepts" if focus.kind in ("paper", "text") else "papers"
    return {"heading": f"{what} around “{focus.label}” ({len(firsts)})",
            "empty": f"No {what} around “{focus.label}”.", "sections": sections[:80],
            "focus": focus.start[0]}


def describe(focus: Focus, net: Network, depth: int) -> str:
    """Subtitle of a focus page."""
    n_papers = sum(1 for n in net.nodes if n["kind"] == "paper")
    kind = {"family": "concepts named with", "text": "papers saying"}.get(focus.kind, focus.kind)
    return (f"{kind} “{snippet(focus.label, 60)}”, {plural(depth, 'step')} out: "
            f"{plural(n_papers, 'paper')} · {plural(len(net.nodes) - n_papers, 'concept')}")
