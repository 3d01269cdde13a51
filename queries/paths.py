"""The concept path between two concepts through papers, for every engine.

The graph walked is bipartite: a concept is linked to the papers that mention
it, a paper to the concepts it mentions. An engine supplies two "neighbours"
functions (one query each per BFS layer); :func:`shortest_path` does a
breadth-first search from both ends, expanding the smaller frontier, and then
walks from ``a`` always taking the smallest-id neighbour that stays on a
shortest path, so every engine returns the same path: among the shortest
paths, the one whose sequence of ids is lexicographically smallest.

:func:`path_rows` turns a path into rows (one per paper step) once an engine
has looked up labels, titles and evidence sentences.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from typing import Any

__all__ = ["path_rows", "shortest_path"]

#: ``f(ids) -> {id: ids of the other kind}``: neighbours of a batch of concepts or papers.
Neighbours = Callable[[list[str]], Mapping[str, Iterable[str]]]

_Node = tuple[str, str]  # ("c", concept id) or ("p", paper id)


def shortest_path(
    a: str,
    b: str,
    papers_of: Neighbours,
    concepts_of: Neighbours,
    *,
    max_papers: int | None = None,
) -> list[str] | None:
    """The shortest concept–paper–…–concept path from concept ``a`` to concept ``b``.

    Parameters
    ----------
    a, b : str
        Concept ids.
    papers_of : callable
        ``papers_of(concept_ids)`` maps each concept id to the ids of the papers
        that mention it.
    concepts_of : callable
        ``concepts_of(paper_ids)`` maps each paper id to the ids of the concepts
        it mentions.
    max_papers : int, optional
        Give up (return None) when the path would need more papers than this.

    Returns
    -------
    list of str or None
        ``[a, paper, concept, paper, …, b]`` (just ``[a]`` when ``a == b``), or
        None when no path exists.

    Examples
    --------
    >>> mentions = {"p1": {"x", "y"}, "p2": {"y", "z"}, "p3": {"x", "w"}, "p4": {"w", "z"}}
    >>> by_concept = {}
    >>> for p, cs in mentions.items():
    ...     for c in cs:
    ...         by_concept.setdefault(c, set()).add(p)
    >>> shortest_path("x", "z", lambda ids: {i: by_concept.get(i, ()) for i in ids},
    ...               lambda ids: {i: mentions.get(i, ()) for i in ids})
    ['x', 'p1', 'y', 'p2', 'z']
    >>> shortest_path("x", "nowhere", lambda ids: {i: by_concept.get(i, ()) for i in ids},
    ...               lambda ids: {i: mentions.get(i, ()) for i in ids}) is None
    True

    One-way neighbours: topics ``T`` and ``U`` have papers, but no paper names a topic back,
    so ``T``'s side walks on to concepts before ``U``'s meets it at the paper:

    >>> topics = {"T": {"p1"}, "U": {"p1"}}
    >>> shortest_path("T", "U", lambda ids: {i: topics.get(i, ()) for i in ids},
    ...               lambda ids: {i: mentions.get(i, ()) for i in ids})
    ['T', 'p1', 'U']
    """
    if a == b:
        return [a]
    adj: dict[_Node, set[_Node]] = defaultdict(set)
    sides: dict[str, dict[str, Any]] = {
        "a": {"dist": {("c", a): 0}, "layers": [[("c", a)]]},
        "b": {"dist": {("c", b): 0}, "layers": [[("c", b)]]},
    }

    def expand(side: dict) -> list[_Node]:
        frontier = side["layers"][-1]
        kind = frontier[0][0]
        ids = sorted(n[1] for n in frontier)
        found = (papers_of if kind == "c" else concepts_of)(ids)
        other = "p" if kind == "c" else "c"
        depth = len(side["layers"])
        dist = side["dist"]
        new: set[_Node] = set()
        for i, neighbours in found.items():
            u = (kind, i)
            for v_id in neighbours:
                v = (other, v_id)
                adj[u].add(v)
                adj[v].add(u)
                if v not in dist:
                    dist[v] = depth
                    new.add(v)
        side["layers"].append(sorted(new))
        return side["layers"][-1]

    while True:
        fa, fb = sides["a"]["layers"][-1], sides["b"]["layers"][-1]
        if not fa or not fb:
            return None
        depth = len(sides["a"]["layers"]) + len(sides["b"]["layers"]) - 2  # edges so far
        if max_papers is not None and (depth + 1) // 2 >= max_papers + 1:
            return None
        name, other = ("a", "b") if len(fa) <= len(fb) else ("b", "a")
        new = expand(sides[name])
        meet = [n for n in new if n in sides[other]["dist"]]
        if meet:
            break

    # Nodes on shortest paths, by position from a: back-track each side from the meeting layer.
    def back_track(layers: list[list[_Node]], top: list[_Node]) -> list[set[_Node]]:
        on: list[set[_Node]] = [set() for _ in layers]
        on[-1] = set(top)
        for t in range(len(layers) - 2, -1, -1):
            on[t] = {u for u in layers[t] if adj[u] & on[t + 1]}
        return on

    # The meeting nodes are in the last layer of the side just expanded, but not always in
    # the last layer of the other: with one-way neighbours (a topic's papers, which name no
    # topic back) the other side may have gone a layer further without meeting. The path
    # goes through the meeting nodes nearest the other end, at that layer.
    k = min(sides[other]["dist"][n] for n in meet)
    top = sorted(n for n in meet if sides[other]["dist"][n] == k)
    mine = back_track(sides[name]["layers"], top)
    theirs = back_track(sides[other]["layers"][:k + 1], top)
    a_side, b_side = (mine, theirs) if name == "a" else (theirs, mine)
    positions = a_side + list(reversed(b_side))[1:]  # the meeting layer once
    path = [("c", a)]
    for layer in positions[1:]:
        path.append(min(adj[path[-1]] & layer))
    return [n[1] for n in path]


def path_rows(
    path: list[str],
    *,
    labels: Mapping[str, str],
    titles: Mapping[str, str],
    evidence: Mapping[tuple[str, str], list[str]],
) -> list[dict]:
    """One row per paper step of ``path`` (see :func:`shortest_path`).

    Each row: ``step`` (1, 2 …), ``from``/``from_label``, ``paper``/``title``,
    ``to``/``to_label``, and ``evidence_from``/``evidence_to``: the distinct
    sentences, in text order, in which the paper mentions each concept.
    ``evidence`` maps ``(paper id, concept id)`` to those sentences.

    Examples
    --------
    >>> path_rows(["x", "p1", "y"], labels={"x": "X", "y": "Y"}, titles={"p1": "P"},
    ...           evidence={("p1", "x"): ["X and Y."], ("p1", "y"): ["X and Y."]})[0]["to_label"]
    'Y'
    """
    rows = []
    for step, i in enumerate(range(1, len(path), 2), start=1):
        c1, p, c2 = path[i - 1], path[i], path[i + 1]
        rows.append({
            "step": step, "from": c1, "from_label": labels[c1], "paper": p, "title": titles[p],
            "to": c2, "to_label": labels[c2],
            "evidence_from": list(evidence.get((p, c1), [])),
            "evidence_to": list(evidence.get((p, c2), [])),
        })
    return rows
