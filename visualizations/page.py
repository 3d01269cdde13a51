"""Render a view (a PyVis network plus legend and panel texts) as one offline HTML page.

PyVis 0.3.2's own template links Bootstrap from a CDN even with
``cdn_resources="in_line"``, so pages use the project's template: vis-network's
script and stylesheet are inlined from the installed PyVis package, and all
data travels as JSON inside ``<script type="application/json">`` with ``<``,
``>`` and ``&`` escaped, so no title or abstract can close the script or
inject markup. Tooltips and the side panel are filled as plain text.
"""

from __future__ import annotations

import html as html_escape
import json
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

import jinja2
import pyvis
from markupsafe import Markup
from pyvis.network import Network

from kg.core.errors import Messages, OutputError
from kg.core.files import atomic_write
from kg.core.model import RELATION_TYPES, SYMMETRIC_RELATION_TYPES
from visualizations.labels import declutter
from visualizations.layout import apply_positions
from visualizations.style import RELATION_COLORS, TYPE_COLORS

#: distance between neighbouring nodes on pages whose labels must not overlap: room for them
LABEL_SPACING = 110.0

__all__ = ["EDGE_KINDS", "LABEL_SPACING", "Page", "View", "render", "safe_json", "type_legend",
           "write_page"]

_PYVIS_LIB = Path(pyvis.__file__).parent / "lib" / "vis-9.1.2"
#: Edge kinds every view may use: legend label, dashes, shown when the page opens.
EDGE_KINDS = {
    "mentions": {"label": "mentions (hover for the sentence)", "dashes": False},
    "shares": {"label": "papers sharing concepts", "dashes": True},
    "cooccurs": {"label": "mentioned together (width: papers)", "dashes": False},
    "broader": {"label": "narrower → broader", "dashes": True},
    # relations between concepts, one kind per type (visualizations.relation_edges)
    **{f"relation-{t}": {"label": f"{t} {'↔' if t in SYMMETRIC_RELATION_TYPES else '→'} "
                                  "(hover for the sentence)",
                         "dashes": False, "color": RELATION_COLORS[t]}
       for t in RELATION_TYPES},
}


@dataclass
class View:
    """Everything a page shows: the network and the words around it.

    Attributes
    ----------
    net : pyvis.network.Network
        Nodes carry vis-network fields plus ``kind``, ``group`` (legend key),
        ``degree`` (for the min-degree filter) and ``full`` (panel heading);
        edges carry ``kind`` and a plain-text ``title``.
    legend : list of dict
        ``{"key", "label", "color", "shape"}`` per node group, in order.
    overview : dict, optional
        What the side panel shows when nothing is selected:
        ``{"heading", "empty", "sections": [{"node", "items": [node ids]}]}``.
    hidden_edges : set of str
        Edge kinds switched off when the page opens.
    note : str
        A visible note above the graph (what a cut-down page left out, how to see more).
    fixed_layout : bool
        Compute positions in Python whatever the size (no physics in the browser).
    declutter : bool
        With fixed positions: draw a label only where it overlaps no other label or
        node (:mod:`visualizations.labels`; concepts with most papers first).
    """

    net: Network
    title: str
    subtitle: str = ""
    legend: list[dict] = field(default_factory=list)
    overview: dict | None = None
    hidden_edges: set[str] = field(default_factory=set)
    help: str = "Click a node to see its links and evidence; search to find one."
    note: str = ""
    fixed_layout: bool = False
    declutter: bool = False


def type_legend(net: Network) -> list[dict]:
    """Legend entries for the node types present in ``net``, papers first.

    Examples
    --------
    >>> from pyvis.network import Network
    >>> net = Network(); net.nodes = [{"group": "method"}, {"group": "paper"}]
    >>> [e["key"] for e in type_legend(net)]
    ['paper', 'method']
    """
    present = {n.get("group") for n in net.nodes}
    return [{"key": k, "label": k, "color": c, "shape": "box" if k == "paper" else "dot"}
            for k, c in TYPE_COLORS.items() if k in present]


def safe_json(value: object) -> str:
    """JSON that is safe inside an HTML ``<script>`` element.

    Examples
    --------
    >>> safe_json({"t": "</script>"})
    '{"t": "\\\\u003c/script\\\\u003e"}'
    """
    return (json.dumps(value, ensure_ascii=False, sort_keys=True)
            .replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


def _options(fixed: bool) -> dict:
    return {
        "interaction": {"hover": True, "tooltipDelay": 150, "hideEdgesOnDrag": fixed,
                        "hideEdgesOnZoom": fixed, "navigationButtons": False},
        "physics": {
            "enabled": not fixed,
            "solver": "forceAtlas2Based",
            "forceAtlas2Based": {"gravitationalConstant": -70, "centralGravity": 0.02,
                                 "springLength": 70, "springConstant": 0.08,
                                 "avoidOverlap": 0.5},
            "stabilization": {"enabled": not fixed, "iterations": 400, "fit": True},
        },
        "layout": {"randomSeed": 7, "improvedLayout": not fixed},
        "edges": {"smooth": False, "scaling": {"min": 1, "max": 8}},
        # labels smaller than this many pixels on screen are not drawn: zoom in for detail
        "nodes": {"font": {"size": 14}, "scaling": {"label": {"drawThreshold": 6}}},
    }


def render(view: View) -> str:
    """The HTML of ``view``: vis-network inlined, data escaped, legend, panel, search, filters.

    Large networks get positions computed in Python and no physics
    (:mod:`visualizations.layout`).

    Examples
    --------
    >>> from pyvis.network import Network
    >>> html = render(View(Network(), title="</script><b>x</b>"))
    >>> "</script><b>" in html
    False
    """
    net = view.net
    preset = bool(net.nodes) and all("x" in n and "y" in n for n in net.nodes)
    fixed = preset or apply_positions(net.nodes, net.edges, force=view.fixed_layout,
                                      spacing=LABEL_SPACING if view.declutter else 38.0)
    if fixed and view.declutter:
        declutter(net.nodes, [n["id"] for n in sorted(
            net.nodes, key=lambda n: (n.get("kind") == "paper", -(n.get("degree") or 0),
                                      n["id"]))], over_nodes=False)
    years = sorted({n["year"] for n in net.nodes if n.get("year") is not None})
    kinds = sorted({e.get("kind", "") for e in net.edges} & EDGE_KINDS.keys(),
                   key=list(EDGE_KINDS).index)
    data = {
        "nodes": net.nodes, "edges": net.edges, "options": _options(fixed), "fixed": fixed,
        "legend": view.legend or type_legend(net),
        "edgeKinds": [{"key": k, **EDGE_KINDS[k], "shown": k not in view.hidden_edges}
                      for k in kinds],
        "overview": view.overview,
        "help": view.help,
        "note": view.note,
        # a year filter when the papers span several years (and the legend is not the years)
        "years": years if len(years) > 1 and not any(
            e.get("key") == str(years[0]) for e in view.legend) else [],
    }
    env = jinja2.Environment(
        loader=jinja2.FunctionLoader(
            lambda name: (resources.files("visualizations") / "templates" / name).read_text(
                encoding="utf-8")),
        autoescape=True,
    )
    return env.get_template("page.html").render(
        title=view.title,
        subtitle=view.subtitle,
        vis_js=Markup(_PYVIS_LIB.joinpath("vis-network.min.js").read_text(
            encoding="utf-8").replace("</script", "<\\/script")),
        vis_css=Markup(_PYVIS_LIB.joinpath("vis-network.css").read_text(encoding="utf-8")),
        data_json=Markup(safe_json(data)),
    )


def write_page(html: str, path: Path) -> None:
    """Write ``html`` atomically (a reader never sees half a page)."""
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise OutputError(Messages.OUT_NOT_WRITABLE.format(
            out=path, detail=e.strerror or type(e).__name__)) from None
    with atomic_write(path, text=True) as f:
        f.write(html)


@dataclass(frozen=True)
class Page:
    """A rendered page: shown inline by Jupyter, and the same HTML written to a file.

    Jupyter calls :meth:`_repr_html_`: the page goes into an ``<iframe>`` as its
    ``srcdoc`` (HTML-escaped, so the page cannot break out of the attribute),
    sandboxed to run its own scripts only.

    Examples
    --------
    >>> page = Page("<p>a & b</p>", title="t")
    >>> page._repr_html_()
    '<iframe title="t" srcdoc="&lt;p&gt;a &amp; b&lt;/p&gt;" sandbox="allow-scripts" \
style="width: 100%; height: 600px; border: 0"></iframe>'
    """

    html: str
    title: str = ""
    #: height of the inline frame, in pixels
    height: int = 600

    def _repr_html_(self) -> str:
        return (f'<iframe title="{html_escape.escape(self.title)}" '
                f'srcdoc="{html_escape.escape(self.html)}" sandbox="allow-scripts" '
                f'style="width: 100%; height: {int(self.height)}px; border: 0"></iframe>')

    def write(self, path: str | Path) -> Path:
        """Write the page to ``path`` atomically; return the path."""
        path = Path(path)
        write_page(self.html, path)
        return path
