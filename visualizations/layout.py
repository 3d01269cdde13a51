"""Node positions computed in Python, for graphs too big for in-browser physics.

vis-network's physics needs many seconds on more than a thousand nodes, so
large pages get fixed coordinates instead: a force-directed layout
(networkx ``spring_layout``) of the non-paper nodes, linked by how many
papers they share, with every paper placed among the concepts it mentions.
"""

from __future__ import annotations

import math
from collections import defaultdict
from itertools import combinations

import networkx as nx
import numpy as np

__all__ = ["LAYOUT_ITERATIONS", "PHYSICS_LIMIT", "apply_positions", "needs_layout", "positions"]

#: Above this many nodes a page gets fixed positions and no physics.
PHYSICS_LIMIT = 400
#: Optimiser steps of the energy layout. networkx's default (50) took ~9 s on NeurIPS 2018's
#: default page on a busy 2-core machine; 15 takes a third of that and the nearest-neighbour
#: spacing stays alike (bench/bench_pages.py).
LAYOUT_ITERATIONS = 15


def needs_layout(n_nodes: int) -> bool:
    """Whether a page of ``n_nodes`` nodes gets positions from :func:`positions`.

    Examples
    --------
    >>> needs_layout(100), needs_layout(5000)
    (False, True)
    """
    return n_nodes > PHYSICS_LIMIT


def positions(
    nodes: list[dict], edges: list[dict], *, seed: int = 7, spacing: float = 38.0
) -> dict[str, tuple[float, float]]:
    """Pixel coordinates for vis-network nodes (``id``, ``kind``) and edges (``from``, ``to``).

    Parameters
    ----------
    nodes, edges : list of dict
        vis-network nodes and edges; nodes whose ``kind`` is ``"paper"`` are
        placed at the centre of their neighbours, the others by a spring layout.
    seed : int
        Seed of the spring layout, so a page is the same on every build.
    spacing : float
        Roughly the distance between neighbouring nodes, in pixels.

    Examples
    --------
    >>> nodes = [{"id": "c1"}, {"id": "c2"}, {"id": "p", "kind": "paper"}]
    >>> edges = [{"from": "p", "to": "c1"}, {"from": "p", "to": "c2"}]
    >>> pos = positions(nodes, edges)
    >>> round(pos["p"][0] - (pos["c1"][0] + pos["c2"][0]) / 2) in range(-40, 41)
    True
    """
    if not nodes:
        return {}
    papers = {n["id"] for n in nodes if n.get("kind") == "paper"}
    if len(papers) == len(nodes):
        papers = set()
    neighbours: dict[str, list[str]] = defaultdict(list)
    h = nx.Graph()
    h.add_nodes_from(sorted(n["id"] for n in nodes if n["id"] not in papers))
    for e in edges:
        a, b = e["from"], e["to"]
        if a in papers and b not in papers:
            neighbours[a].append(b)
        elif b in papers and a not in papers:
            neighbours[b].append(a)
        elif a not in papers and b not in papers:
            _add_weight(h, a, b, float(e.get("value", 1)))
    for anchors in neighbours.values():
        group = sorted(set(anchors))
        for a, b in combinations(group, 2):  # a paper with k concepts adds 1/(k-1) per pair
            _add_weight(h, a, b, 1.0 / (len(group) - 1))
    raw = nx.spring_layout(h, seed=seed, method="energy", weight="weight", gravity=2.0,
                           iterations=LAYOUT_ITERATIONS) \
        if len(h) > 1 else {n: (0.0, 0.0) for n in h}
    pos = _spread(raw, radius=spacing * math.sqrt(len(nodes)) / 1.6)
    golden = math.pi * (3 - math.sqrt(5))
    placed: dict[str, int] = defaultdict(int)
    for i, pid in enumerate(sorted(papers)):
        anchors = neighbours.get(pid)
        if anchors:
            cx = sum(pos[a][0] for a in anchors) / len(anchors)
            cy = sum(pos[a][1] for a in anchors) / len(anchors)
            key = min(anchors)
        else:
            cx = cy = 0.0
            key = ""
        k = placed[key] = placed[key] + 1  # spiral out around the same spot
        r = spacing * (0.6 + 0.45 * math.sqrt(k))
        pos[pid] = (cx + r * math.cos(k * golden + i % 7), cy + r * math.sin(k * golden + i % 7))
    return pos


def _spread(raw: dict, *, radius: float) -> dict[str, tuple[float, float]]:
    """Scale a layout so that most nodes fill a disc of ``radius``; pull far outliers in.

    A few small components or loosely linked nodes would otherwise set the scale
    and squeeze the rest of the graph into a dot.
    """
    ids = list(raw)
    xy = np.array([raw[i] for i in ids], dtype=float).reshape(-1, 2)
    xy -= np.median(xy, axis=0)
    r = np.hypot(xy[:, 0], xy[:, 1])
    r90 = float(np.percentile(r, 90)) if len(r) else 0.0
    if r90 <= 0:
        return {i: (0.0, 0.0) for i in ids}
    scaled = r / r90 * radius
    limit = 1.25 * radius
    extra = np.log1p(np.maximum(scaled - limit, 0)) * radius * 0.05
    capped = np.where(scaled > limit, limit + extra, scaled)
    factor = np.divide(capped, r, out=np.zeros_like(r), where=r > 0)
    xy *= factor[:, None]
    return {i: (float(x), float(y)) for i, (x, y) in zip(ids, xy, strict=True)}


def _add_weight(h: nx.Graph, a: str, b: str, w: float) -> None:
    if h.has_edge(a, b):
        h[a][b]["weight"] += w
    else:
        h.add_edge(a, b, weight=w)


def apply_positions(nodes: list[dict], edges: list[dict], *, seed: int = 7,
                    force: bool = False, spacing: float = 38.0) -> bool:
    """Give ``nodes`` fixed ``x``/``y`` when there are too many for physics (or ``force``);
    say if it did. ``spacing`` as in :func:`positions` (wider leaves room for labels)."""
    if not nodes or not (force or needs_layout(len(nodes))):
        return False
    pos = positions(nodes, edges, seed=seed, spacing=spacing)
    for n in nodes:
        n["x"], n["y"] = round(pos[n["id"]][0], 1), round(pos[n["id"]][1], 1)
    return True
