"""The networkx view of a :class:`~kg.core.model.KnowledgeGraph`.

Node ids are ``"paper:ID"`` and ``"concept:ID"``. Papers link to the concepts
they mention (``count``, ``evidence``), concepts to broader concepts, and
papers to papers through shared concepts, each shared concept weighted by its
inverse document frequency ``log(N / df)`` so that a rare shared concept
("MinHash") counts more than a common one ("deep learning").

The graph is directed so that ``broader`` keeps its meaning (narrower → broader);
``mentions`` go paper → concept and ``shares`` from the smaller paper id to the
larger (read it as undirected: ``g.to_undirected()``). With ``relations=True`` it is a
``MultiDiGraph`` that also holds the concept–concept relations (``used-for`` …), which may
join the same two concepts as ``broader`` or as another relation type.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection
from itertools import combinations

import networkx as nx
import numpy as np

from kg.core.model import SYMMETRIC_RELATION_TYPES, KnowledgeGraph

__all__ = ["concept_node", "paper_link_count", "paper_links", "paper_node", "to_networkx"]


def paper_node(paper_id: str) -> str:
    """networkx node id of a paper."""
    return f"paper:{paper_id}"


def concept_node(concept_id: str) -> str:
    """networkx node id of a concept."""
    return f"concept:{concept_id}"


def paper_links(
    kg: KnowledgeGraph, *, max_df: int | None = None, among: Collection[str] | None = None
) -> dict[tuple[str, str], tuple[float, list[str]]]:
    """Paper pairs that share concepts, with weight and the shared concepts.

    Parameters
    ----------
    kg : KnowledgeGraph
    max_df : int, optional
        Ignore concepts mentioned by more papers than this (they carry little
        weight and make the pair count quadratic on large corpora).
    among : collection of str, optional
        Only pairs of these papers (a page's papers: far fewer pairs to build).
        Concepts are still counted over the whole corpus (``max_df``, IDF).

    Returns
    -------
    dict
        ``(paper_a, paper_b) -> (weight, shared concept ids)`` with ``a < b``;
        the weight is the sum of the shared concepts' IDF.

    Examples
    --------
    >>> from kg.core.model import KnowledgeGraph, Paper, Mention
    >>> m = lambda p, c: Mention(p, c, "abstract", 0, 1, "x", "x.", "lexicon")
    >>> kg = KnowledgeGraph(papers={p: Paper(p, p, "x") for p in "abc"},
    ...                     mentions=[m("a", "gnn"), m("b", "gnn")])
    >>> paper_links(kg)
    {('a', 'b'): (0.4054651081081644, ['gnn'])}
    """
    pairs: dict[tuple[str, str], list[str]] = defaultdict(list)
    keep = None if among is None else set(among)
    for cid, papers in sorted(kg.concept_papers.items()):
        if len(papers) < 2 or (max_df is not None and len(papers) > max_df):
            continue
        if keep is not None:
            papers = papers & keep
        for a, b in combinations(sorted(papers), 2):
            pairs[(a, b)].append(cid)
    return {k: (sum(kg.idf(c) for c in shared), shared) for k, shared in pairs.items()}


def paper_link_count(kg: KnowledgeGraph) -> int:
    """How many paper pairs share a concept: ``len(paper_links(kg))`` without the pairs.

    Examples
    --------
    >>> from kg.core.model import KnowledgeGraph, Paper, Mention
    >>> m = lambda p, c: Mention(p, c, "abstract", 0, 1, "x", "x.", "lexicon")
    >>> paper_link_count(KnowledgeGraph(papers={p: Paper(p, p, "x") for p in "abc"},
    ...                                 mentions=[m("a", "gnn"), m("b", "gnn"), m("c", "x")]))
    1
    """
    # A paper's neighbours are the union of its concepts' paper sets. A concept in many
    # papers is a bitmap (one bit per paper), one in few the array of its papers' numbers:
    # a bitmap for every concept grew with papers × concepts (~1 GB at 100,000 papers)
    index = {p: i for i, p in enumerate(kg.papers)}
    dense_from = max(2, len(index) // 32)  # from there a bitmap is the smaller
    dense: dict[str, int] = {}
    sparse: dict[str, np.ndarray] = {}
    scratch = np.zeros(len(index), dtype=bool)
    for cid, papers in kg.concept_papers.items():
        if len(papers) > 1:
            members = np.fromiter((index[p] for p in papers), dtype=np.int32, count=len(papers))
            if len(papers) < dense_from:
                sparse[cid] = members
            else:
                dense[cid] = _bitmap(scratch, members)
    total = 0
    for concepts in kg.concepts_per_paper():  # (not a table per paper: ~120 MB at 100k)
        union = 0
        arrays = []
        for cid in concepts:
            if cid in dense:
                union |= dense[cid]
            elif cid in sparse:
                arrays.append(sparse[cid])
        if arrays:  # the few-paper concepts' papers as one more bitmap, for this paper only
            union |= _bitmap(scratch, np.concatenate(arrays) if len(arrays) > 1 else arrays[0])
        if union:
            total += union.bit_count() - 1  # a paper is its own neighbour once
    return total // 2  # each pair counted from both ends


def _bitmap(scratch: np.ndarray, members: np.ndarray) -> int:
    """The papers numbered ``members`` as the bits of an int (``scratch``: all False, a
    bool per paper; left so)."""
    scratch[members] = True
    bits = int.from_bytes(np.packbits(scratch, bitorder="little").tobytes(), "little")
    scratch[members] = False
    return bits


def to_networkx(kg: KnowledgeGraph, *, links: bool = True,
                relations: bool = False) -> nx.DiGraph:
    """Build the directed paper–concept graph (``kind`` tells node and edge kinds).

    Every node has ``kind`` (``paper`` or ``concept``), ``label`` (a paper's title, a
    concept's preferred label) and ``type`` (``paper``, or the concept's type). No
    attribute is called ``id`` (igraph and GraphML readers keep that name for
    themselves): the node id is ``paper:ID`` or ``concept:ID``.

    ``relations=True`` gives a ``networkx.MultiDiGraph`` (two concepts may be joined by
    ``broader`` and by relations of several types) keyed by edge kind, with one more kind:
    ``relation`` edges, keyed and typed by the relation type (``used-for`` …), from head to
    tail in SciERC's direction as :attr:`~kg.core.model.KnowledgeGraph.relation_edges` reads
    them, with ``count`` (sentences stating it), ``papers`` (their ids), ``evidence`` (the
    first such paper's sentence) and ``symmetric`` (``compare`` and ``conjunction``: one edge
    from the smaller concept id, to read either way).

    Examples
    --------
    >>> from kg.core.model import Concept, KnowledgeGraph
    >>> g = to_networkx(KnowledgeGraph(concepts={
    ...     "gnn": Concept("gnn", "graph neural network", "method", broader=["nn"]),
    ...     "nn": Concept("nn", "neural network", "method")}))
    >>> list(g.edges(data="kind"))
    [('concept:gnn', 'concept:nn', 'broader')]
    >>> g.nodes["concept:gnn"]["label"], g.nodes["concept:gnn"]["type"]
    ('graph neural network', 'method')
    >>> from kg.core.model import Relation
    >>> kg = KnowledgeGraph(concepts={
    ...     "gnn": Concept("gnn", "graph neural network", "method", broader=["nn"]),
    ...     "nn": Concept("nn", "neural network", "method")}, relations=[
    ...     Relation("p", "hyponym-of", "abstract", 0, 4, "GNNs", 9, 11, "NN", "GNNs are NN.",
    ...              "model", head_concept="gnn", tail_concept="nn")])
    >>> sorted(to_networkx(kg, relations=True).edges(keys=True))
    [('concept:gnn', 'concept:nn', 'broader'), ('concept:gnn', 'concept:nn', 'hyponym-of')]
    >>> to_networkx(kg, relations=True).edges["concept:gnn", "concept:nn", "hyponym-of"]
    {'kind': 'relation', 'type': 'hyponym-of', 'count': 1, 'papers': ['p'], \
'evidence': 'GNNs are NN.', 'symmetric': False}
    """
    g = nx.DiGraph()
    for p in kg.papers.values():
        g.add_node(paper_node(p.id), kind="paper", label=p.title, type="paper", title=p.title,
                   year=p.year, venue=p.venue, url=p.url)
    for c in kg.concepts.values():
        g.add_node(concept_node(c.id), kind="concept", label=c.label, type=c.type,
                   papers=len(kg.concept_papers.get(c.id, ())))
    for c in kg.concepts.values():
        for b in c.broader:
            if b in kg.concepts:
                g.add_edge(concept_node(c.id), concept_node(b), kind="broader")
    for pid, counts in kg.paper_concepts.items():
        for cid, n in counts.items():
            s = kg.salience[(pid, cid)]
            g.add_edge(paper_node(pid), concept_node(cid), kind="mentions", count=n,
                       evidence=kg.first_evidence[(pid, cid)], salience=s.score, about=s.about)
    if links:
        for (a, b), (w, shared) in paper_links(kg).items():
            g.add_edge(paper_node(a), paper_node(b), kind="shares", weight=w, shared=shared)
    if not relations:
        return g
    multi = nx.MultiDiGraph()
    multi.add_nodes_from(g.nodes(data=True))
    multi.add_edges_from((a, b, d["kind"], d) for a, b, d in g.edges(data=True))
    for e in kg.relation_edges.values():
        multi.add_edge(concept_node(e.head), concept_node(e.tail), e.type, kind="relation",
                       type=e.type, count=e.count, papers=e.papers,
                       evidence=next(iter(e.evidence.values())),
                       symmetric=e.type in SYMMETRIC_RELATION_TYPES)
    return multi
