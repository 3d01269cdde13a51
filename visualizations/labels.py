"""Labels only where they fit: no label box over another label or another node.

A page with fixed positions (:mod:`visualizations.layout`) knows where every
node is drawn, so its labels can be checked before the page is written:
vis-network scales labels with the zoom like everything else, so two labels
that do not overlap in page coordinates never overlap on screen. Labels are
placed greedily, the most important node first (the order given); a label
that would overlap a label already placed, or another node, is dropped (the
node keeps its name in the side panel, the search box and its tooltip).

The box of a label is estimated on the safe side of what vis-network draws:
for dots and squares the text hangs below the node, for boxes it is inside.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

__all__ = ["CHAR_WIDTH", "declutter", "label_box", "node_box", "text_width"]

#: width of a lower-case letter as a share of the font size (generous for sans-serif fonts)
CHAR_WIDTH = 0.62
#: wider characters (capitals, digits, m and w) and narrower ones (space, punctuation)
_WIDTHS = {**dict.fromkeys("mwMW", 0.95), **dict.fromkeys(" .,;:'|!il", 0.4)}
#: line height as a share of the font size
LINE_HEIGHT = 1.3
_CELL = 120.0

Box = tuple[float, float, float, float]


def text_width(text: str, size: float) -> float:
    """A safe estimate of the width of one line of ``text`` at font ``size`` (pixels).

    Examples
    --------
    >>> text_width("GNN", 10), text_width("gnn", 10)
    (23.4, 18.6)
    """
    w = sum(_WIDTHS.get(ch, 0.78 if ch.isupper() or ch.isdigit() else CHAR_WIDTH)
            for ch in text)
    return round(w * size, 1)


def _font(node: dict) -> tuple[float, float]:
    font = node.get("font") or {}
    return float(font.get("size", 14)), float(font.get("strokeWidth", 0))


def label_box(node: dict) -> Box | None:
    """``(left, top, right, bottom)`` of a node's label in page coordinates, or ``None``.

    Examples
    --------
    >>> label_box({"x": 0, "y": 0, "shape": "dot", "size": 10, "label": "GNN",
    ...            "font": {"size": 10}})
    (-13.7, 11.0, 13.7, 24.0)
    """
    text = node.get("label") or ""
    if not text or "x" not in node:
        return None
    size, stroke = _font(node)
    lines = text.split("\n")
    width = max(text_width(line, size) for line in lines) + 2 * stroke + 4
    height = len(lines) * size * LINE_HEIGHT + 2 * stroke
    x, y = float(node["x"]), float(node["y"])
    if node.get("shape") == "box":  # text inside the box, with its margin
        width, height = width + 10, height + 10
        return (round(x - width / 2, 1), round(y - height / 2, 1),
                round(x + width / 2, 1), round(y + height / 2, 1))
    top = y + float(node.get("size", 10)) + 1
    return (round(x - width / 2, 1), round(top, 1), round(x + width / 2, 1),
            round(top + height, 1))


def node_box(node: dict) -> Box:
    """The area a node's shape covers (its label aside)."""
    r = float(node.get("size", 10)) if node.get("shape") != "box" else 8.0
    x, y = float(node["x"]), float(node["y"])
    return (x - r, y - r, x + r, y + r)


def _cells(box: Box) -> Iterable[tuple[int, int]]:
    for i in range(int(box[0] // _CELL), int(box[2] // _CELL) + 1):
        for j in range(int(box[1] // _CELL), int(box[3] // _CELL) + 1):
            yield i, j


def _overlap(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def declutter(nodes: list[dict], order: list[str], *, over_nodes: bool = True) -> int:
    """Drop the labels that would overlap; ``order`` ranks node ids, most important first.

    Nodes need ``x`` and ``y``. A dropped label moves to ``full`` (if not there
    already) and leaves ``label`` empty. Returns how many labels were dropped.
    Without ``over_nodes`` a label may cross another node's shape (not another label).

    Examples
    --------
    >>> a = {"id": "a", "x": 0, "y": 0, "label": "graph neural network", "size": 5}
    >>> b = {"id": "b", "x": 0, "y": -12, "label": "transformer", "size": 5}
    >>> declutter([a, b], ["a", "b"]), a["label"], b["label"], b["full"]
    (1, 'graph neural network', '', 'transformer')
    """
    by_id = {n["id"]: n for n in nodes}
    grid: dict[tuple[int, int], list[tuple[str, Box]]] = defaultdict(list)
    for n in nodes:  # every node's body is an obstacle for the other nodes' labels
        if "x" in n and over_nodes:
            box = node_box(n)
            for cell in _cells(box):
                grid[cell].append((n["id"], box))
    dropped = 0
    for nid in order:
        n = by_id[nid]
        box = label_box(n)
        if box is None:
            continue
        clash = any(other != nid and _overlap(box, b)
                    for cell in _cells(box) for other, b in grid.get(cell, ()))
        if clash:
            n.setdefault("full", n["label"])
            n["label"] = ""
            dropped += 1
            continue
        for cell in _cells(box):
            grid[cell].append((nid, box))
    return dropped
