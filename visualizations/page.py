"""Render a PyVis network as one self-contained, offline HTML page.

PyVis 0.3.2's own template links Bootstrap from a CDN even with
``cdn_resources="in_line"``, so pages use the project's template: vis-network's
script and stylesheet are inlined from the installed PyVis package, and all
data travels as JSON inside ``<script type="application/json">`` with ``<``,
``>`` and ``&`` escaped, so no title or abstract can close the script or
inject markup. Tooltips are plain text.
"""

from __future__ import annotations

import json
import os
import tempfile
from importlib import resources
from pathlib import Path

import jinja2
import pyvis
from markupsafe import Markup
from pyvis.network import Network

from visualizations.style import TYPE_COLORS

_PYVIS_LIB = Path(pyvis.__file__).parent / "lib" / "vis-9.1.2"
PHYSICS_LIMIT = 800  # above this many nodes the layout is computed once, then frozen


def _safe_json(value: object) -> str:
    """JSON that is safe inside an HTML ``<script>`` element."""
    return (json.dumps(value, ensure_ascii=False, sort_keys=True)
            .replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


def _options(n_nodes: int) -> dict:
    physics = n_nodes <= PHYSICS_LIMIT
    return {
        "interaction": {"hover": True, "tooltipDelay": 120, "navigationButtons": False},
        "physics": {
            "enabled": True,
            "solver": "forceAtlas2Based",
            "forceAtlas2Based": {"gravitationalConstant": -60, "springLength": 90},
            "stabilization": {"enabled": True, "iterations": 250 if physics else 120},
        },
        "edges": {"smooth": False, "scaling": {"min": 1, "max": 6}},
        "nodes": {"font": {"size": 14}},
        "freezeAfterStabilization": not physics,
    }


def render(net: Network, *, title: str, subtitle: str = "", legend: dict | None = None) -> str:
    """The HTML of ``net``: vis-network inlined, data escaped, legend, search and filters.

    Examples
    --------
    >>> from pyvis.network import Network
    >>> html = render(Network(), title="</script><b>x</b>")
    >>> "</script><b>" in html
    False
    """
    env = jinja2.Environment(
        loader=jinja2.FunctionLoader(
            lambda name: (resources.files("visualizations") / "templates" / name).read_text(
                encoding="utf-8")),
        autoescape=True,
    )
    data = {
        "nodes": net.nodes, "edges": net.edges, "options": _options(len(net.nodes)),
        "legend": legend or {k: v for k, v in TYPE_COLORS.items()},
    }
    return env.get_template("page.html").render(
        title=title,
        subtitle=subtitle,
        vis_js=Markup(_PYVIS_LIB.joinpath("vis-network.min.js").read_text(
            encoding="utf-8").replace("</script", "<\\/script")),
        vis_css=Markup(_PYVIS_LIB.joinpath("vis-network.css").read_text(encoding="utf-8")),
        data_json=Markup(_safe_json(data)),
    )


def write_page(html: str, path: Path) -> None:
    """Write ``html`` atomically (a reader never sees half a page)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".page-", suffix=".html")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(html)
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp, 0o666 & ~umask)  # mkstemp's 0600 would make the page private
    os.replace(tmp, path)
