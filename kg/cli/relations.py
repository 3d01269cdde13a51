"""``kg relations``, ``kg methods`` and ``kg evaluations``: how concepts relate, with evidence."""

from __future__ import annotations

from pathlib import Path

import click

from kg.cli.options import (
    OutFirst,
    after_out,
    ask,
    emit,
    engine_option,
    format_option,
    out_argument,
)
from kg.core.model import CONCEPT_TYPES, RELATION_TYPES
from queries.relations import DIRECTIONS

__all__ = ["COLUMNS", "COMMANDS", "evaluations", "methods", "relations"]

#: the columns of a table or CSV (JSON has every field of the rows)
COLUMNS = ["head", "relation", "tail", "papers", "paper_ids", "evidence"]

_exact = click.option("--exact", is_flag=True,
                      help="Only CONCEPT itself, not the concepts below it.")


@click.command(cls=OutFirst)
@out_argument
@after_out("concept", "CONCEPT")
@click.option("--type", "rtype", type=click.Choice(RELATION_TYPES), multiple=True,
              help="Only relations of this type (may be repeated) [default: all].")
@click.option("--direction", type=click.Choice(DIRECTIONS), default="both", show_default=True,
              help="out: CONCEPT is the relation's head ('what is X used for'); in: its tail "
                   "('what is used for X'). compare and conjunction count as both.")
@click.option("--of-type", "of_type", type=click.Choice(CONCEPT_TYPES), multiple=True,
              help="Only relations with a concept of this type at the other end (may be "
                   "repeated).")
@_exact
@engine_option
@format_option
def relations(out: Path, concept: str, rtype: tuple[str, ...], direction: str,
              of_type: tuple[str, ...], exact: bool, engine: str, fmt: str) -> None:
    """Relations of CONCEPT with other concepts (used-for, evaluate-for, compare …), each
    with the papers that state it and one sentence as evidence.

    CONCEPT is a concept's label, alias or acronym. Rows read "head relation tail" in
    SciERC's direction (GNN used-for node classification), most papers first.
    """
    rows = ask(engine, out, "relations", concept, type=rtype or None, direction=direction,
               of_type=of_type or None, narrower=not exact)
    emit(rows, COLUMNS, fmt)


@click.command(cls=OutFirst)
@out_argument
@after_out("task", "TASK")
@_exact
@engine_option
@format_option
def methods(out: Path, task: str, exact: bool, engine: str, fmt: str) -> None:
    """Methods used for TASK (the used-for relations that end at it, from a method)."""
    emit(ask(engine, out, "methods_for", task, narrower=not exact), COLUMNS, fmt)


@click.command(cls=OutFirst)
@out_argument
@after_out("concept", "CONCEPT")
@_exact
@engine_option
@format_option
def evaluations(out: Path, concept: str, exact: bool, engine: str, fmt: str) -> None:
    """Datasets and metrics that evaluate CONCEPT, a method or a task (evaluate-for)."""
    emit(ask(engine, out, "evaluations", concept, narrower=not exact), COLUMNS, fmt)


COMMANDS = [relations, methods, evaluations]
