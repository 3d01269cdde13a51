"""``kg viz``: write an interactive, offline page of a built graph."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from kg.cli.options import OutFirst, filter_options, out_argument
from kg.core.errors import KGError, Messages
from kg.core.output import one_line

__all__ = ["COMMANDS", "ViewOptionError", "viz"]


class ViewOptionError(KGError):
    """A ``kg viz`` view is missing the option it needs."""


@click.command(cls=OutFirst)
@out_argument
@click.option("--view", type=click.Choice(["graph", "concepts", "focus", "bridge"]),
              default=None, help="Which page: papers and concepts (graph, the default), the "
              "concept map, a focus on one node, or the bridges between two topics.")
@click.option("--focus", "focus", metavar="TEXT",
              help="Concept (label, alias or acronym) or paper id to centre on; implies "
              "--view focus.")
@click.option("--depth", type=click.IntRange(1, 6), default=2, show_default=True,
              help="With --focus: how many paper–concept steps to walk out.")
@click.option("--bridge", "bridge", nargs=2, metavar="A B",
              help="Two topics; implies --view bridge.")
@click.option("--min-papers", type=click.IntRange(1), default=1, show_default=True,
              help="Leave out concepts mentioned by fewer papers.")
@click.option("--max-nodes", type=click.IntRange(1), default=None,
              help="Cap on nodes (graph: all up to 400 nodes, else the 400 that matter, "
                   "hubs left out; concepts 300, focus 300 by default).")
@click.option("--color-by", type=click.Choice(["type", "year"]), default="type",
              show_default=True,
              help="graph view: colour concepts by type, or papers by year and concepts by "
                   "their papers' mean year (the legend then filters by year).")
@filter_options
@click.option("-o", "--output", type=click.Path(path_type=Path, dir_okay=False),
              help="HTML file to write, - for standard output [default: OUT/VIEW.html].")
def viz(out: Path, view: str | None, focus: str | None, depth: int,
        bridge: tuple[str, str] | None, min_papers: int, max_nodes: int | None,
        color_by: str, filters: dict, output: Path | None) -> None:
    """Write an interactive page of OUT: one HTML file that works offline.

    --year, --since, --until and --venue draw only those papers. Topics of --focus
    and --bridge are resolved like every question (stderr says how).
    """
    # the store, pyvis and networkx inside the command (see kg.cli)
    from kg.stores.out import load_model
    from queries import topic
    from queries.filters import paper_filter
    from visualizations.views import make_view, render, write_view
    from visualizations.years import papers_of_years

    view = view or ("focus" if focus else "bridge" if bridge else "graph")
    if view == "focus" and not focus:
        raise ViewOptionError(Messages.VIEW_NEEDS.format(view=view, option="--focus TEXT"))
    if view == "bridge" and not bridge:
        raise ViewOptionError(Messages.VIEW_NEEDS.format(view=view, option="--bridge A B"))
    kg = papers_of_years(load_model(out), paper_filter(**filters))
    limits = {"max_nodes": max_nodes} if max_nodes else {}
    texts = [focus] if view == "focus" and focus and focus.strip() not in kg.papers else \
        list(bridge) if view == "bridge" and bridge else []
    for text in texts:
        click.echo(one_line(f"topic {topic(kg, text)['note']}"), err=True)
    if view == "graph":
        page = make_view(kg, view, min_papers=min_papers, color_by=color_by, **limits)
    elif view == "concepts":
        page = make_view(kg, view, min_papers=min_papers, **limits)
    elif view == "focus":
        page = make_view(kg, view, text=focus, depth=depth, min_papers=min_papers, **limits)
    else:
        page = make_view(kg, view, topic_a=bridge[0], topic_b=bridge[1],
                         **({"limit": max_nodes} if max_nodes else {}))
    counts = f"{len(page.net.nodes)} nodes, {len(page.net.edges)} links"
    if output is not None and str(output) == "-":
        sys.stdout.write(render(page))
        click.echo(f"wrote the {view} page to standard output: {counts}", err=True)
        return
    path = output or out / f"{view}.html"
    write_view(page, path)
    click.echo(f"wrote {path}: {counts}", err=True)


COMMANDS = [viz]
