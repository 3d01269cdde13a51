"""Options shared by several commands."""

from __future__ import annotations

from pathlib import Path

import click

from kg.output import FORMATS

out_argument = click.argument(
    "out", type=click.Path(path_type=Path, file_okay=False), metavar="OUT")
format_option = click.option(
    "--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True,
    help="Output format.")
