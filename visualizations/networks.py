"""The paper–concept network: papers, the concepts they mention, and what they share.

Nodes and edges are handed to PyVis in bulk (``net.nodes``/``net.edges``):
``Network.add_node`` scans every existing node on each call, which is
quadratic on large corpora.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection

from pyvis.network import Network

from kg.core.model import KnowledgeGraph
from kg.stores.graph import concept_node, paper_links, paper_node
from visualizations.details import (
    concept_tooltip,
    mention_tooltip,
    paper_tooltip,
    plural,
)
from visualizations.style import (
    EDGE_COLOR,
    TYPE_COLORS,
    TYPE_SHAPES,
    node_size,
    short,
    snippet,
)

__all__ = [
    "COMPACT_ABOVE", "DEFAULT_MAX_NODES", "SHARES_PER_PAPER", "concept_vis_node",
    "new_network", "paper_concept_network", "paper_vis_node", "select",
    "shared_concepts_overview", "wrap_label",
]

DEFAULT_MAX_NODES = 1500
#: Above this many nodes papers are small squares instead of labelled boxes.
COMPACT_ABOVE = 400
#: Each paper keeps at most this many "shares concepts" links (its strongest).
SHARES_PER_PAPER = 3


def new_network() -> Network:
    """An empty PyVis network set up for the project's pages."""
    return Network(height="100%", width="100%", directed=False, cdn_resources="in_line")


def select(
    kg: KnowledgeGraph, *, min_papers: int = 1, max_nodes: int = DEFAULT_MAX_NODES,
    exclude: Collection[str] = (),
) -> tuple[list[str], list[str]]:
    """Which papers and concepts a paper–concept page shows.

    Concepts mentioned by at least ``min_papers`` papers (``exclude`` left out: hubs),
    most-mentioned first,
    fill at most half of ``max_nodes`` when papers would not fit otherwise;
    papers follow, those mentioning the most kept concepts first; concepts left
    without a kept paper are dropped.

    Returns
    -------
    papers, concepts : list of str
        Ids, each sorted.

    Examples
    --------
    >>> from kg.core.model import KnowledgeGraph
    >>> select(KnowledgeGraph())
    ([], [])
    """
    ranked = sorted(kg.concept_papers, key=lambda c: (-len(kg.concept_papers[c]), c))
    left_out = set(exclude)
    concepts = [c for c in ranked if len(kg.concept_papers[c]) >= min_papers
                and c not in left_out]
    papers = {p for c in concepts for p in kg.concept_papers[c]}
    if len(concepts) + len(papers) > max_nodes:
        concepts = concepts[: max(1, max_nodes - min(len(papers), max_nodes // 2))]
        hits = Counter(p for c in concepts for p in kg.concept_papers[c])
        ranked_papers = sorted(hits, key=lambda p: (-hits[p], p))
        papers = set(ranked_papers[: max(0, max_nodes - len(concepts))])
        concepts = [c for c in concepts if kg.concept_papers[c] & papers]
    return sorted(papers), sorted(concepts)


def paper_concept_network(
    kg: KnowledgeGraph, *, min_papers: int = 1, max_nodes: int = DEFAULT_MAX_NODES,
    shares: bool = True, exclude: Collection[str] = (),
) -> Network:
    """Papers (boxes) linked to the concepts they mention (dots coloured by type).

    Concepts mentioned by two or more of the shown papers are drawn large with
    bold labels: they are what papers share. With ``shares``, papers that share
    concepts are also linked directly (dashed; each paper keeps its
    :data:`SHARES_PER_PAPER` strongest links, weighted by the shared concepts'
    IDF).

    Parameters
    ----------
    kg : KnowledgeGraph
    min_papers : int
        Leave out concepts mentioned by fewer papers.
    max_nodes : int
        Cap on nodes; the most-mentioned concepts are kept first.
    shares : bool
        Add paper–paper "shares concepts" edges.

    Examples
    --------
    >>> from kg.core.model import KnowledgeGraph, Mention, Paper
    >>> m = lambda p: Mention(p, "gnn", "abstract", 0, 3, "GNN", "GNN rocks.", "lexicon")
    >>> from kg.core.model import Concept
    >>> kg = KnowledgeGraph(papers={p: Paper(p, p, "GNN rocks.") for p in "abc"},
    ...                     concepts={"gnn": Concept("gnn", "GNN", "method")},
    ...                     mentions=[m("a"), m("b")])
    >>> net = paper_concept_network(kg)
    >>> len(net.nodes), sorted(e["kind"] for e in net.edges)
    (3, ['mentions', 'mentions', 'shares'])
    """
    papers, concepts = select(kg, min_papers=min_papers, max_nodes=max_nodes, exclude=exclude)
    keep, paper_set = set(concepts), set(papers)
    compact = len(papers) + len(concepts) > COMPACT_ABOVE
    # the shown papers' concepts alone, as their evidence and salience below: a page shows
    # a few hundred papers of a model that may have many thousands
    counts = kg.paper_concepts_of(paper_set)
    nodes = [paper_vis_node(kg, pid, sum(1 for c in counts.get(pid, ()) if c in keep),
                            compact=compact, concepts=counts.get(pid, ()))
             for pid in papers]
    for cid in concepts:
        shown = len(kg.concept_papers[cid] & paper_set)
        nodes.append(concept_vis_node(kg, cid, shown))
    first = kg.first_evidence_of(paper_set)
    salience = kg.salience_of(paper_set)
    edges = []
    for pid in papers:
        for cid, count in sorted(counts.get(pid, {}).items()):
            if cid in keep:
                shared = len(kg.concept_papers[cid] & paper_set) > 1
                s = salience.get((pid, cid))
                about = s is not None and s.about
                # what the paper is about is drawn solid; what it merely mentions, dashed
                edges.append({
                    "from": paper_node(pid), "to": concept_node(cid), "kind": "mentions",
                    "about": about, "dashes": not about,
                    "value": count if about else 1,
                    "title": mention_tooltip(kg, pid, cid, count, first[(pid, cid)],
                                             salience=salience),
                    "note": f"“{snippet(first[(pid, cid)], 200)}”",
                    "color": {"color": "#7f8c9a" if shared else "#c3cad3"},
                })
    if shares:
        edges += _share_edges(kg, paper_set)
    net = new_network()
    net.nodes, net.edges = nodes, edges
    net.node_ids = [n["id"] for n in nodes]
    return net


def paper_vis_node(kg: KnowledgeGraph, pid: str, degree: int, *, compact: bool = False,
                   concepts: Collection[str] | None = None) -> dict:
    """The vis-network node of a paper: a box with its wrapped title and its tooltip.

    ``degree`` is the number of links it has on the page (for the min-degree filter);
    ``compact`` pages, too big for a box per paper, get small squares instead;
    ``concepts``, the paper's concepts for its tooltip (:func:`paper_tooltip`).

    Examples
    --------
    >>> from kg.core.model import KnowledgeGraph, Paper
    >>> kg = KnowledgeGraph(papers={"p": Paper("p", "Graph neural networks at scale", "x.")})
    >>> node = paper_vis_node(kg, "p", 2)
    >>> node["id"], node["shape"], node["label"]
    ('paper:p', 'box', 'Graph neural networks at\\nscale')
    """
    p = kg.papers[pid]
    node = {
        "id": paper_node(pid), "label": wrap_label(short(p.title, 64)), "full": p.title,
        "group": "paper", "kind": "paper", "degree": degree,
        "title": paper_tooltip(kg, pid, concepts=concepts), "shape": TYPE_SHAPES["paper"],
        "color": TYPE_COLORS["paper"], "font": {"color": "#ffffff", "size": 14},
        "widthConstraint": {"maximum": 170}, "year": p.year,
    }
    if compact:  # a box per paper would cover a large graph; labels show when zoomed in
        node.update(shape="square", size=7, font={"color": "#243b53", "size": 10},
                    label=short(p.title, 48))
        del node["widthConstraint"]
    return node


def concept_vis_node(kg: KnowledgeGraph, cid: str, shown_papers: int) -> dict:
    """The vis-network node of a concept: a dot sized by its papers, coloured by its type.

    ``shown_papers`` is how many of the page's papers mention it: a concept that two
    or more share is drawn with a large, bold label.

    Examples
    --------
    >>> from kg.core.model import Concept, KnowledgeGraph, Mention
    >>> kg = KnowledgeGraph(concepts={"gnn": Concept("gnn", "GNN", "method")},
    ...     mentions=[Mention("p", "gnn", "abstract", 0, 3, "GNN", "GNN.", "lexicon")])
    >>> node = concept_vis_node(kg, "gnn", 1)
    >>> node["id"], node["group"], node["font"]["size"]
    ('concept:gnn', 'method', 11)
    """
    c = kg.concepts[cid]
    n = len(kg.concept_papers[cid])
    shared = shown_papers > 1
    return {
        "id": concept_node(cid), "label": c.label, "full": c.label,
        "group": c.type, "kind": "concept", "degree": shown_papers,
        "title": concept_tooltip(kg, cid), "shape": "dot", "size": node_size(n),
        "color": TYPE_COLORS.get(c.type, TYPE_COLORS["concept"]),
        "font": ({"size": 20, "color": "#102a43", "strokeWidth": 5, "strokeColor": "#ffffff"}
                 if shared else
                 {"size": 11, "color": "#52606d", "strokeWidth": 3, "strokeColor": "#ffffff"}),
        "borderWidth": 3 if shared else 1,
    }


def _share_edges(kg: KnowledgeGraph, papers: set[str]) -> list[dict]:
    """Each paper's strongest "shares concepts" links among ``papers``."""
    max_df = max(2, int(len(kg.papers) ** 0.5 * 4))  # very common concepts say little
    links = {k: v for k, v in paper_links(kg, max_df=max_df, among=papers).items() if v[0] > 0}
    best: dict[str, list[tuple[str, str]]] = {}
    for pair in links:
        for p in pair:
            best.setdefault(p, []).append(pair)
    chosen: set[tuple[str, str]] = set()
    for pairs in best.values():
        pairs.sort(key=lambda k: (-round(links[k][0], 6), k))
        chosen.update(pairs[:SHARES_PER_PAPER])
    edges = []
    for a, b in sorted(chosen):
        w, shared = links[(a, b)]
        labels = sorted(kg.concepts[c].label for c in shared)
        edges.append({
            "from": paper_node(a), "to": paper_node(b), "kind": "shares",
            "value": round(w, 3), "dashes": True, "color": {"color": EDGE_COLOR},
            "title": (f"{short(kg.papers[a].title, 70)}\n{short(kg.papers[b].title, 70)}\n\n"
                      f"share {plural(len(labels), 'concept')}: {', '.join(labels)}"),
            "note": "shares " + ", ".join(labels),
        })
    return edges


def wrap_label(text: str, width: int = 24) -> str:
    """Break ``text`` into lines of about ``width`` characters (the labels of boxes).

    Examples
    --------
    >>> print(wrap_label("a study of graph neural networks at scale", 16))
    a study of graph
    neural networks
    at scale
    """
    lines, line = [], ""
    for word in text.split():
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}".strip()
    return "\n".join([*lines, line] if line else lines)


def shared_concepts_overview(
    kg: KnowledgeGraph, net: Network, *, limit: int = 60, per_concept: int = 8
) -> dict:
    """Panel overview: each concept shown with two or more papers, and those papers."""
    node_ids = {n["id"] for n in net.nodes}
    sections = []
    for n in sorted((n for n in net.nodes if n["kind"] == "concept" and n["degree"] > 1),
                    key=lambda n: (-n["degree"], n["label"].lower())):
        cid = n["id"].removeprefix("concept:")
        items = [paper_node(p) for p in sorted(kg.concept_papers[cid])
                 if paper_node(p) in node_ids]
        sections.append({"node": n["id"], "items": items[:per_concept],
                         "more": max(0, len(items) - per_concept)})
        if len(sections) == limit:
            break
    return {
        "heading": "Concepts that papers share",
        "empty": "No concept is mentioned by two of the papers shown.",
        "sections": sections,
    }
