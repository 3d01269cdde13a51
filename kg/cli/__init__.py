"""The ``kg`` command line.

Commands live in one module per topic (``kg.cli.build``, ``kg.cli.query`` …),
each exposing a ``COMMANDS`` list; :data:`COMMAND_MODULES` registers them all in
one place. Every :class:`~kg.core.errors.KGError` becomes one line on stderr and
exit status 2; ``--debug`` shows the traceback instead.

Every ``kg`` command imports all these modules, so at their top they import only
click, :mod:`kg.core` and :mod:`queries` (which ``--engine`` needs anyway). The
stores, the build, the extractors and the pages (pyoxigraph, requests, networkx,
spaCy, pyvis: a few milliseconds to a second each) are imported inside the
commands that use them.
"""

from __future__ import annotations

import importlib
import signal
import sys

import click

from kg.core.errors import KGError
from kg.core.output import one_line, redact_uris
from kg.core.version import __version__

__all__ = ["COMMAND_MODULES", "KGGroup", "cli", "main"]

COMMAND_MODULES = [
    "kg.cli.build",
    "kg.cli.query",
    "kg.cli.sparql",
    "kg.cli.cypher",
    "kg.cli.eval",
    "kg.cli.viz",
    "kg.cli.bridge",
]


class KGGroup(click.Group):
    """A click group that turns known errors into one-line messages."""

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except KGError as e:
            if ctx.obj and ctx.obj.get("debug"):
                raise
            click.echo(f"kg: error: {one_line(redact_uris(str(e)))}", err=True)
            ctx.exit(e.exit_code)
        except KeyboardInterrupt:
            click.echo("kg: interrupted; nothing was changed", err=True)
            ctx.exit(130)


@click.group(cls=KGGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="kg")
@click.option("--debug", is_flag=True, help="Show tracebacks instead of one-line errors.")
@click.pass_context
def cli(ctx: click.Context, debug: bool) -> None:
    """Turn research-paper abstracts into a knowledge graph, and query it."""
    ctx.ensure_object(dict)["debug"] = debug


for _name in COMMAND_MODULES:
    for _command in importlib.import_module(_name).COMMANDS:
        cli.add_command(_command)


def _terminated(signum: int, _frame: object) -> None:
    # SIGTERM unwinds like Ctrl-C, so a build removes its temporary folder on the way out.
    raise KeyboardInterrupt(signal.Signals(signum).name)


def main() -> None:
    """Console-script entry point."""
    signal.signal(signal.SIGTERM, _terminated)
    cli(prog_name="kg", args=sys.argv[1:])
