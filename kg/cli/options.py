"""Options shared by several commands."""

from __future__ import annotations

from pathlib import Path

import click

from kg.core.output import FORMATS
from queries.engines import ENGINES

out_argument = click.argument(
    "out", type=click.Path(path_type=Path, file_okay=False), metavar="OUT")
format_option = click.option(
    "--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True,
    help="Output format.")
engine_option = click.option(
    "--engine", type=click.Choice(list(ENGINES)), default=next(iter(ENGINES)), show_default=True,
    help="Query engine: SPARQL over the Oxigraph store, Python over model.json, or "
         "Cypher over Bolt ($NEO4J_URI, else a local server of OUT).")
