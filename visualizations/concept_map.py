"""The concept map: concepts linked by how often papers mention them together.

Like VOSviewer's term maps: concepts are clustered into communities (networkx
Louvain, fixed seed, so a page is the same on every build) and coloured by
cluster; node size is the number of papers, link width the number of papers
that mention both concepts. Relations the papers state between two of the concepts
("GNN used-for node classification") are typed, directed links over them
(:mod:`visualizations.relation_edges`).
"""

from __future__ import annotations

import math
from collections import Counter
from itertools import combinations

import networkx as nx
from pyvis.network import Network

from kg.core.model import KnowledgeGraph
from kg.stores.graph import concept_node
from queries.bridging import hubs
from visualizations.details import concept_tooltip, plural
from visualizations.networks import new_network
from visualizations.relation_edges import relation_vis_edges
from visualizations.style import OTHER_COLOR, cluster_color, node_size, short

__all__ = [
    "DEFAULT_MAX_CONCEPTS", "LINKS_PER_CONCEPT", "cluster_names", "clusters", "clusters_overview",
    "concept_map_network", "cooccurrence",
]

DEFAULT_MAX_CONCEPTS = 300
#: Each concept keeps at most this many links (its strongest), so hubs do not hide the rest.
LINKS_PER_CONCEPT = 8


def cooccurrence(kg: KnowledgeGraph, concepts: set[str]) -> Counter[tuple[str, str]]:
    """How many papers mention both concepts, for each pair of ``concepts`` (``a < b``).

    Examples
    --------
    >>> from kg.core.model import KnowledgeGraph, Mention
    >>> m = lambda p, c: Mention(p, c, "abstract", 0, 1, "x", "x.", "lexicon")
    >>> kg = KnowledgeGraph(mentions=[m("p", "a"), m("p", "b"), m("q", "a"), m("q", "b")])
    >>> cooccurrence(kg, {"a", "b"})
    Counter({('a', 'b'): 2})
    """
    pairs: Counter[tuple[str, str]] = Counter()
    for counts in kg.paper_concepts.values():
        pairs.update(combinations(sorted(c for c in counts if c in concepts), 2))
    return pairs


def clusters(g: nx.Graph, *, seed: int = 7) -> list[list[str]]:
    """Louvain communities of ``g`` (edge ``weight``), largest first, members sorted.

    Examples
    --------
    >>> g = nx.Graph([("a", "b"), ("c", "d")])
    >>> clusters(g)
    [['a', 'b'], ['c', 'd']]
    """
    if g.number_of_nodes() == 0:
        return []
    found = nx.community.louvain_communities(g, weight="weight", seed=seed)
    return sorted((sorted(c) for c in found), key=lambda c: (-len(c), c))


def cluster_names(kg: KnowledgeGraph, members: list[str], n: int = 2) -> list[str]:
    """The ``n`` concepts that name a cluster: its most specific frequent ones.

    Each member scores ``df · idf`` (papers times ln(N / papers)), so a concept
    that few papers mention, or one that almost every paper mentions
    ("state-of-the-art", "accuracy"), ranks below a topic of its own; hubs
    (:func:`queries.bridging.hubs`) never name a cluster unless it has nothing else.

    Examples
    --------
    >>> from kg.core.model import Concept, KnowledgeGraph, Mention, Paper
    >>> m = lambda p, c: Mention(p, c, "abstract", 0, 1, "x", "x.", "lexicon")
    >>> kg = KnowledgeGraph(papers={f"p{i}": Paper(f"p{i}", "t", "x.") for i in range(40)},
    ...     concepts={c: Concept(c, c) for c in ("accuracy", "gnn", "rare")},
    ...     mentions=[m(f"p{i}", "accuracy") for i in range(30)]
    ...              + [m(f"p{i}", "gnn") for i in range(5)] + [m("p0", "rare")])
    >>> cluster_names(kg, ["accuracy", "gnn", "rare"])
    ['gnn', 'rare']
    """
    total = max(1, len(kg.papers))
    df = {c: len(kg.concept_papers.get(c, ())) for c in members}
    hub_ids = hubs(df, total)
    score = {c: round(df[c] * math.log(total / df[c]), 6) if df[c] else 0.0 for c in members}
    return sorted(members, key=lambda c: (c in hub_ids, -score[c], c))[:n]


def concept_map_network(
    kg: KnowledgeGraph, *, min_papers: int = 1, max_nodes: int = DEFAULT_MAX_CONCEPTS,
    seed: int = 7,
) -> tuple[Network, list[dict]]:
    """Concepts linked by co-occurrence, coloured by Louvain cluster.

    Parameters
    ----------
    kg : KnowledgeGraph
    min_papers : int
        Leave out concepts mentioned by fewer papers.
    max_nodes : int
        Keep at most this many concepts, the most-mentioned first.
    seed : int
        Seed of the community detection.

    Returns
    -------
    net : pyvis.network.Network
    legend : list of dict
        One entry per cluster (``key``, ``label`` naming its biggest concepts,
        ``color``, ``members``), largest first; concepts linked to nothing are
        grouped as ``"unlinked"``.

    Examples
    --------
    >>> from kg.core.model import Concept, KnowledgeGraph, Mention, Paper
    >>> m = lambda p, c: Mention(p, c, "abstract", 0, 1, "x", "x.", "lexicon")
    >>> kg = KnowledgeGraph(papers={p: Paper(p, p, "x.") for p in "pq"},
    ...                     concepts={c: Concept(c, c.upper()) for c in "abc"},
    ...                     mentions=[m("p", "a"), m("p", "b"), m("q", "c")])
    >>> net, legend = concept_map_network(kg)
    >>> len(net.nodes), len(net.edges), [g["label"] for g in legend]
    (3, 1, ['1 · A, B', 'unlinked'])
    """
    ranked = sorted(kg.concept_papers, key=lambda c: (-len(kg.concept_papers[c]), c))
    chosen = [c for c in ranked if len(kg.concept_papers[c]) >= min_papers][:max_nodes]
    pairs = cooccurrence(kg, set(chosen))
    kept = _strongest(pairs, kg)
    g = nx.Graph()
    g.add_nodes_from(chosen)
    g.add_weighted_edges_from((a, b, pairs[(a, b)]) for a, b in kept)
    groups = clusters(g.subgraph(n for n in g if g.degree(n) > 0), seed=seed)
    cluster_of: dict[str, str] = {}
    legend = []
    for i, members in enumerate(groups):
        key = f"cluster-{i + 1}"
        top = cluster_names(kg, members)
        legend.append({"key": key, "color": cluster_color(i), "shape": "dot",
                       "members": len(members),
                       "label": f"{i + 1} · " + short(", ".join(kg.concepts[c].label
                                                               for c in top), 34)})
        cluster_of.update(dict.fromkeys(members, key))
    unlinked = [c for c in chosen if c not in cluster_of]
    if unlinked:
        legend.append({"key": "unlinked", "label": "unlinked", "color": OTHER_COLOR,
                       "shape": "dot", "members": len(unlinked)})
        cluster_of.update(dict.fromkeys(unlinked, "unlinked"))
    colors = {e["key"]: e["color"] for e in legend}
    names = {e["key"]: e["label"] for e in legend}
    nodes = []
    for cid in sorted(chosen):
        n = len(kg.concept_papers[cid])
        key = cluster_of[cid]
        nodes.append({
            "id": concept_node(cid), "label": kg.concepts[cid].label,
            "full": kg.concepts[cid].label, "kind": "concept", "group": key,
            "degree": g.degree(cid), "shape": "dot", "size": node_size(n),
            "color": colors[key],
            "title": concept_tooltip(kg, cid, extra=f"cluster {names[key]}"),
            "font": {"size": 14 + min(10, 2 * n), "color": "#102a43", "strokeWidth": 4,
                     "strokeColor": "#ffffff"},
        })
    edges = []
    for a, b in sorted(kept):
        shared = sorted(kg.concept_papers[a] & kg.concept_papers[b])
        titles = [short(kg.papers[p].title, 70) for p in shared[:5]]
        more = f"\n… and {len(shared) - 5} more" if len(shared) > 5 else ""
        la, lb = kg.concepts[a].label, kg.concepts[b].label
        edges.append({
            "from": concept_node(a), "to": concept_node(b), "kind": "cooccurs",
            "value": len(shared), "color": {"color": "#b8c2cc"},
            "title": (f"{la} + {lb}: together in {plural(len(shared), 'paper')}\n\n"
                      + "\n".join("• " + t for t in titles) + more),
            "note": f"together in {plural(len(shared), 'paper')}: "
                    + "; ".join(titles[:3]) + ("…" if len(shared) > 3 else ""),
        })
    edges += relation_vis_edges(kg, chosen)
    net = new_network()
    net.nodes, net.edges = nodes, edges
    net.node_ids = [n["id"] for n in nodes]
    return net, legend


def _strongest(pairs: Counter[tuple[str, str]], kg: KnowledgeGraph) -> set[tuple[str, str]]:
    """Pairs among each concept's :data:`LINKS_PER_CONCEPT` strongest.

    Strength is the number of shared papers, then the association strength
    ``c_ab / (df_a df_b)`` that VOSviewer uses, so that links of rare concepts
    are not drowned by the links of very common ones.
    """
    def strength(pair: tuple[str, str]) -> tuple:
        a, b = pair
        assoc = pairs[pair] / (len(kg.concept_papers[a]) * len(kg.concept_papers[b]))
        return (-pairs[pair], -round(assoc, 9), pair)

    per: dict[str, list[tuple[str, str]]] = {}
    for pair in pairs:
        for c in pair:
            per.setdefault(c, []).append(pair)
    kept: set[tuple[str, str]] = set()
    for links in per.values():
        links.sort(key=strength)
        kept.update(links[:LINKS_PER_CONCEPT])
    return kept


def clusters_overview(net: Network, legend: list[dict], *, per_cluster: int = 12) -> dict:
    """Panel overview: each cluster's most-mentioned concepts."""
    by_group: dict[str, list[dict]] = {}
    for n in net.nodes:
        by_group.setdefault(n["group"], []).append(n)
    sections = []
    for entry in legend:
        members = sorted(by_group.get(entry["key"], []), key=lambda n: (-n["size"], n["label"]))
        if not members:
            continue
        sections.append({"title": entry["label"],
                         "node": members[0]["id"],
                         "items": [n["id"] for n in members[1:per_cluster]],
                         "more": max(0, len(members) - per_cluster)})
    return {"heading": "Clusters", "empty": "No concepts.", "sections": sections}
