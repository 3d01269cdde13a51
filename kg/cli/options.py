"""Options shared by several commands."""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from kg.core.output import FORMATS
from queries.engines import ENGINES

__all__ = [
    "QUERY_TIMEOUT", "engine_option", "filter_options", "format_option", "lexicon_option",
    "out_argument", "span_model_choice", "span_model_option", "timeout_option",
]

out_argument = click.argument(
    "out", type=click.Path(path_type=Path, file_okay=False), metavar="OUT")
format_option = click.option(
    "--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True,
    help="Output format.")
engine_option = click.option(
    "--engine", type=click.Choice(list(ENGINES)), default=next(iter(ENGINES)), show_default=True,
    help="Query engine: " + "; ".join(f"{name}: {e.help}" for name, e in ENGINES.items()) + ".")
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


#: Seconds a raw query (``kg sparql``, ``kg cypher``) may run by default.
QUERY_TIMEOUT = 60.0

timeout_option = click.option(
    "--timeout", type=click.FloatRange(min=0), default=QUERY_TIMEOUT, show_default=True,
    metavar="SECONDS", help="Stop the query after this many seconds (0: no limit).")
