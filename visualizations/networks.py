"""Views of a knowledge graph as PyVis networks.

Nodes and edges are handed to PyVis in bulk (``net.nodes``/``net.edges``):
``Network.add_node`` scans every existing node on each call, which is
quadratic on large corpora.
"""

from __future__ import annotations

from pyvis.network import Network

from kg.graph import concept_node, paper_node
from kg.model import KnowledgeGraph
from visualizations.style import TYPE_COLORS, TYPE_SHAPES, node_size, snippet

DEFAULT_MAX_NODES = 1500


def _paper_tooltip(kg: KnowledgeGraph, pid: str) -> str:
    p = kg.papers[pid]
    meta = " ".join(str(x) for x in (p.venue, p.year) if x)
    lines = [p.title, f"{p.id}{'  ·  ' + meta if meta else ''}", "", snippet(p.abstract)]
    return "\n".join(lines)


def _concept_tooltip(kg: KnowledgeGraph, cid: str) -> str:
    c = kg.concepts[cid]
    n = len(kg.concept_papers.get(cid, ()))
    lines = [c.label, f"{c.type} · {n} paper{'s' if n != 1 else ''}"]
    if c.aliases:
        lines.append("also: " + ", ".join(sorted(set(c.aliases))[:8]))
    broader = [kg.concepts[b].label for b in c.broader if b in kg.concepts]
    if broader:
        lines.append("under: " + ", ".join(broader))
    return "\n".join(lines)


def _select_concepts(kg: KnowledgeGraph, min_papers: int, max_nodes: int) -> list[str]:
    mentioned = sorted(kg.concept_papers, key=lambda c: (-len(kg.concept_papers[c]), c))
    keep = [c for c in mentioned if len(kg.concept_papers[c]) >= min_papers]
    room = max(0, max_nodes - min(len(kg.papers), max_nodes // 2))
    return keep[:room]


def paper_concept_network(
    kg: KnowledgeGraph, *, min_papers: int = 1, max_nodes: int = DEFAULT_MAX_NODES
) -> Network:
    """Papers (boxes) linked to the concepts they mention (dots, coloured by type).

    Parameters
    ----------
    kg : KnowledgeGraph
    min_papers : int
        Leave out concepts mentioned by fewer papers.
    max_nodes : int
        Cap on nodes; the most-mentioned concepts are kept first.

    Examples
    --------
    >>> from kg.model import KnowledgeGraph
    >>> paper_concept_network(KnowledgeGraph()).nodes
    []
    """
    concepts = _select_concepts(kg, min_papers, max_nodes)
    keep = set(concepts)
    papers = sorted({p for c in concepts for p in kg.concept_papers[c]})
    papers = papers[: max(0, max_nodes - len(concepts))]
    net = Network(height="100%", width="100%", directed=False, cdn_resources="in_line")
    nodes = []
    for pid in papers:
        nodes.append({
            "id": paper_node(pid), "label": _short(kg.papers[pid].title), "group": "paper",
            "title": _paper_tooltip(kg, pid), "shape": TYPE_SHAPES["paper"],
            "color": TYPE_COLORS["paper"], "font": {"color": "#ffffff"},
            "kind": "paper", "ctype": "paper", "degree": len(kg.paper_concepts.get(pid, ())),
        })
    for cid in concepts:
        c = kg.concepts[cid]
        n = len(kg.concept_papers[cid])
        nodes.append({
            "id": concept_node(cid), "label": c.label, "group": c.type,
            "title": _concept_tooltip(kg, cid), "shape": "dot", "size": node_size(n),
            "color": TYPE_COLORS.get(c.type, TYPE_COLORS["concept"]),
            "kind": "concept", "ctype": c.type, "degree": n,
        })
    edges = []
    first: dict[tuple[str, str], str] = {}
    for m in kg.mentions:
        first.setdefault((m.paper, m.concept), m.sentence)
    paper_set = set(papers)
    for pid in papers:
        for cid, count in sorted(kg.paper_concepts.get(pid, {}).items()):
            if cid in keep and pid in paper_set:
                edges.append({
                    "from": paper_node(pid), "to": concept_node(cid), "value": count,
                    "title": f"{count}× — “{snippet(first[(pid, cid)], 240)}”",
                    "color": {"color": "#b0b0b0"},
                })
    net.nodes, net.edges = nodes, edges
    net.node_ids = [n["id"] for n in nodes]
    return net


def _short(title: str, limit: int = 40) -> str:
    return title if len(title) <= limit else title[: limit - 1].rstrip() + "…"
