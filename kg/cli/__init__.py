"""The ``kg`` command line.

Commands live in one module per topic (``kg.cli.build``, ``kg.cli.query`` …),
each exposing a ``COMMANDS`` list; :data:`COMMAND_MODULES` registers them all in
one place. Every error of the user's making — a :class:`~kg.core.errors.KGError`,
a usage error, a file the system refuses — becomes one line on stderr and exit
status 2; ``--debug`` shows the traceback instead. Data goes to stdout, what the
command did (built, wrote, pushed) to stderr.

Every ``kg`` command imports all these modules, so at their top they import only
click, :mod:`kg.core` and :mod:`queries` (which ``--engine`` needs anyway). The
stores, the build, the extractors and the pages (pyoxigraph, requests, networkx,
spaCy, pyvis: a few milliseconds to a second each) are imported inside the
commands that use them.
"""

from __future__ import annotations

import errno
import importlib
import signal
import sys
from typing import Any, NoReturn

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
    "kg.cli.relations",
]


def _fail(ctx: click.Context, message: str, code: int = 2) -> NoReturn:
    click.echo(f"kg: error: {one_line(redact_uris(message))}", err=True)
    ctx.exit(code)


def _usage(e: click.UsageError) -> str:
    """A usage error as one line, pointing to the command's help."""
    message = e.format_message().rstrip(".")
    message = message[:1].lower() + message[1:]
    if e.ctx is None:
        return message
    return f"{message} (see '{e.ctx.command_path} --help')"


def _os_error(e: OSError) -> str:
    where = f"{e.filename}: " if e.filename else ""
    return f"{where}{e.strerror or e}"


class KGGroup(click.Group):
    """A click group that turns known errors into one-line messages."""

    def make_context(self, info_name: str | None, args: list[str],
                     parent: click.Context | None = None, **extra: Any) -> click.Context:
        try:
            return super().make_context(info_name, args, parent=parent, **extra)
        except click.exceptions.NoArgsIsHelpError:
            raise
        except click.UsageError as e:  # the group's own options (kg --bogus)
            _fail(e.ctx or click.Context(self, info_name=info_name), _usage(e))

    def invoke(self, ctx: click.Context) -> object:
        def debug() -> bool:  # set by the group's callback, inside super().invoke
            return bool(ctx.obj and ctx.obj.get("debug"))

        try:
            return super().invoke(ctx)
        except KGError as e:
            if debug():
                raise
            _fail(ctx, str(e), e.exit_code)
        except click.exceptions.NoArgsIsHelpError:
            raise
        except click.UsageError as e:  # a command's arguments and options
            if debug():
                raise
            _fail(ctx, _usage(e))
        except click.ClickException as e:
            if debug():
                raise
            _fail(ctx, e.format_message())
        except OSError as e:  # a path the system refuses (click deals with a closed pipe)
            if debug() or e.errno == errno.EPIPE:
                raise
            _fail(ctx, _os_error(e))
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
