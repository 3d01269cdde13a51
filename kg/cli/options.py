"""Options and arguments shared by several commands.

``OUT``, the folder ``kg build`` wrote, is every query command's first argument and
may be left out: it is ``kg-out`` then (:class:`OutFirst`). Table output fits the
terminal; ``--width N`` and ``--full`` change that (:func:`format_option`, :func:`emit`).
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import click
from click.core import ParameterSource

from kg.core import output
from kg.core.output import FORMATS
from queries.engines import ENGINES

__all__ = [
    "DEFAULT_OUT", "QUERY_TIMEOUT", "OutFirst", "after_out", "ask", "bounded", "emit",
    "engine_option",
    "filter_options", "format_option", "lexicon_option", "out_argument", "span_model_choice",
    "span_model_option", "table_width", "timeout_option",
]

#: The folder ``kg build`` writes and every other command reads by default.
DEFAULT_OUT = Path("kg-out")


class OutFirst(click.Command):
    """A command whose first argument, ``OUT``, may be left out (``kg-out`` then).

    Its other arguments are declared ``required=False`` to click, which fills
    arguments from the left; when the values given are no more than the
    arguments after ``OUT`` need, they all belong after ``OUT``: ``kg paper ID``
    is ``kg paper kg-out ID``. ``needs`` says how many values those arguments
    need (a number, or a function of the parsed options: ``kg sparql --file``
    needs no query).
    """

    def __init__(self, *args: Any, needs: int | Callable[[dict], int] | None = None,
                 **kwargs: Any) -> None:
        kwargs.setdefault("epilog", f"OUT is a folder written by 'kg build' "
                                    f"(default: {DEFAULT_OUT}).")
        super().__init__(*args, **kwargs)
        self.needs = needs

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        rest = super().parse_args(ctx, args)
        arguments = [p for p in self.get_params(ctx) if isinstance(p, click.Argument)]
        after = [p for p in arguments if p.name != "out"]
        given = [ctx.params[p.name] for p in after if ctx.params.get(p.name) is not None]
        if ctx.get_parameter_source("out") is ParameterSource.COMMANDLINE:
            given.insert(0, ctx.params["out"])
        needed = (self.needs(ctx.params) if callable(self.needs) else
                  self.needs if self.needs is not None else
                  sum(1 for p in after if getattr(p, "kg_required", True)))
        out = given.pop(0) if len(given) > needed else str(DEFAULT_OUT)
        if len(given) < needed and getattr(after[len(given)], "kg_required", True):
            raise click.MissingParameter(ctx=ctx, param=after[len(given)])
        ctx.params["out"] = Path(out)
        for i, p in enumerate(after):
            assert p.name is not None
            ctx.params[p.name] = given[i] if i < len(given) else None
        return rest


def out_argument(f: Callable) -> Callable:
    """``[OUT]``, the build folder (default ``kg-out``), for commands of ``cls=OutFirst``."""
    return click.argument("out", required=False, default=str(DEFAULT_OUT), metavar="[OUT]")(f)


def after_out(name: str, metavar: str, *, required: bool = True) -> Callable:
    """An argument after ``[OUT]`` (click sees it as optional: :class:`OutFirst` checks it)."""
    def decorate(f: Callable) -> Callable:
        f = click.argument(name, required=False, metavar=metavar if required else f"[{metavar}]")(f)
        param = f.__click_params__[-1]  # type: ignore[attr-defined]
        param.kg_required = required
        return f
    return decorate


def _table_setting(ctx: click.Context, param: click.Parameter, value: object) -> None:
    if value is not None and value is not False:
        ctx.meta[f"kg_table_{param.name}"] = value


def format_option(f: Callable) -> Callable:
    """``--format table|json|csv``, and ``--width N`` / ``--full`` for tables."""
    f = click.option("--full", is_flag=True, expose_value=False, callback=_table_setting,
                     help="Tables: never wrap a cell, however wide the rows get.")(f)
    f = click.option("--width", type=click.IntRange(20), default=None, metavar="N",
                     expose_value=False, callback=_table_setting,
                     help="Tables: fit into N columns, long cells wrapped (default: the "
                          "terminal's width; unlimited when not a terminal).")(f)
    return click.option("--format", "fmt", type=click.Choice(FORMATS), default="table",
                        show_default=True, help="Output format.")(f)


def emit(rows: Sequence[dict], columns: Sequence[str], fmt: str) -> None:
    """:func:`kg.core.output.emit` to stdout, with the command's ``--width`` / ``--full``."""
    meta = click.get_current_context().meta
    output.emit(rows, columns, fmt, width=meta.get("kg_table_width"),
                full=bool(meta.get("kg_table_full")))


def table_width() -> int | None:
    """How wide a table on stdout may be, after ``--width`` / ``--full``."""
    meta = click.get_current_context().meta
    return output.table_width(sys.stdout, meta.get("kg_table_width"),
                              full=bool(meta.get("kg_table_full")))


#: Seconds a raw query (``kg sparql``, ``kg cypher``) or a question command may run by default.
QUERY_TIMEOUT = 60.0

_engine = click.option(
    "--engine", type=click.Choice(list(ENGINES)), default=next(iter(ENGINES)), show_default=True,
    help="Query engine: " + "; ".join(f"{name}: {e.help}" for name, e in ENGINES.items()) + ".")


def _question_timeout(ctx: click.Context, param: click.Parameter, value: float) -> None:
    ctx.meta["kg_timeout"] = value


def engine_option(f: Callable) -> Callable:
    """``--engine`` and ``--timeout``, the options of every question command.

    The command asks its questions with :func:`ask`, which stops them at ``--timeout``.
    """
    f = click.option("--timeout", type=click.FloatRange(min=0), default=QUERY_TIMEOUT,
                     show_default=True, metavar="SECONDS", expose_value=False,
                     callback=_question_timeout,
                     help="Stop after this many seconds (0: no limit); Ctrl-C stops at once.")(f)
    return _engine(f)


def bounded(call: Callable[[], Any], cancel: Callable[[], object] | None = None) -> Any:
    """``call()`` within the command's ``--timeout``, or one error line (and on Ctrl-C at once).

    Every call of one command shares the same ``--timeout``: it counts from the first.
    ``cancel`` is called when it stops waiting (past the limit, Ctrl-C), to end what the call
    left running on a server.
    """
    import time

    from kg.core.bounded import QueryTimeout, run_bounded
    from kg.core.errors import KGError, Messages

    meta = click.get_current_context().meta
    limit = meta.get("kg_timeout", QUERY_TIMEOUT)
    deadline = meta.setdefault("kg_deadline", time.monotonic() + limit) if limit else None
    late = QueryTimeout(Messages.QUESTION_TIMEOUT.format(seconds=f"{limit:g}"))
    try:
        try:
            answer = run_bounded(call, None if deadline is None
                                 else max(deadline - time.monotonic(), 0.0))
        except QueryTimeout:
            raise late from None
        except KGError:  # the question's own error line, unless it came after the limit
            if deadline is not None and time.monotonic() > deadline:
                raise late from None
            raise
    except (QueryTimeout, KeyboardInterrupt):
        if cancel is not None:
            cancel()
        raise
    if deadline is not None and time.monotonic() > deadline:  # done, but after the limit
        raise late
    return answer


def ask(engine: str, out: Path, question: str, *args: Any, **kwargs: Any) -> Any:
    """Answer ``question`` with ``engine`` over ``out`` (:func:`queries.run`) within the
    command's ``--timeout``; the engine is opened once per command, outside the limit (the
    Cypher engine may start the local server first)."""
    from queries import open_engine, run_on

    engines = click.get_current_context().meta.setdefault("kg_engines", {})
    if (engine, out) not in engines:
        engines[(engine, out)] = open_engine(engine, out)
    source = engines[(engine, out)]

    def cancel() -> None:  # the queries left running on a Bolt server (kg.stores.bolt)
        for opened in engines.values():
            getattr(getattr(opened, "graph", None), "cancel", lambda: 0)()

    return bounded(lambda: run_on(source, question, *args, **kwargs), cancel)


_FILTERS = [
    click.option("--year", type=int, default=None, help="Only papers of this year."),
    click.option("--since", type=int, default=None, metavar="YEAR",
                 help="Only papers of this year or later."),
    click.option("--until", type=int, default=None, metavar="YEAR",
                 help="Only papers of this year or earlier."),
    click.option("--venue", default=None, metavar="NAME",
                 help="Only papers of this venue (ignoring case)."),
]


def filter_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """``--year``, ``--since``, ``--until``, ``--venue``, handed to the command as one
    ``filters`` dict of the options given (the question helpers' keyword arguments)."""
    @functools.wraps(command)
    def wrapper(*args: Any, year: int | None, since: int | None, until: int | None,
                venue: str | None, **kwargs: Any) -> Any:
        given = {"year": year, "since": since, "until": until, "venue": venue}
        return command(*args, filters={k: v for k, v in given.items() if v is not None},
                       **kwargs)

    for option in reversed(_FILTERS):
        wrapper = option(wrapper)
    return wrapper


lexicon_option = click.option(
    "--lexicon", "lexicons", multiple=True, type=click.Path(path_type=Path, dir_okay=False),
    help="Extra SKOS lexicon (Turtle); may be repeated.")
span_model_option = click.option(
    "--span-model", default=None, metavar="DIR|none",
    help="Span model to use instead of the installed one: a spaCy pipeline directory, or "
         "'none' for lexicon, acronyms and patterns only (for evaluation).")


def span_model_choice(value: str | None) -> bool | Path:
    """What ``--span-model`` asks for, as the extraction pipeline takes it.

    ``True`` for the installed model (the option unset), ``False`` for ``none``,
    else the spaCy pipeline directory.

    Examples
    --------
    >>> span_model_choice(None), span_model_choice("None"), span_model_choice("m") == Path("m")
    (True, False, True)
    """
    if value is None:
        return True
    return False if value.lower() == "none" else Path(value)


timeout_option = click.option(
    "--timeout", type=click.FloatRange(min=0), default=QUERY_TIMEOUT, show_default=True,
    metavar="SECONDS", help="Stop the query after this many seconds (0: no limit).")
