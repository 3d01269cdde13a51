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
    help="Query engine: " + "; ".join(f"{name}: {e.help}" for name, e in ENGINES.items()) + ".")
