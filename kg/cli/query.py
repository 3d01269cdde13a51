"""``kg papers``, ``kg concepts`` and ``kg paper``: the first questions."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from kg.cli.options import engine_option, format_option, out_argument
from kg.core.model import CONCEPT_TYPES
from kg.core.output import emit
from queries import run

__all__ = ["COMMANDS", "concepts", "paper", "papers"]


@click.command()
@out_argument
@click.option("--concept", "concept", metavar="TEXT",
              help="Only papers about this concept or a narrower one (label, alias or acronym).")
@click.option("--exact", is_flag=True, help="With --concept: leave out narrower concepts.")
@engine_option
@format_option
def papers(out: Path, concept: str | None, exact: bool, engine: str, fmt: str) -> None:
    """List the papers in OUT, or those about a concept."""
    if concept is None:
        from kg.stores.out import load_model  # stores inside commands (see kg.cli)

        kg = load_model(out)
        rows = [{"id": p.id, "title": p.title, "year": p.year, "venue": p.venue,
                 "concepts": len(kg.paper_concepts.get(p.id, ()))}
                for p in sorted(kg.papers.values(), key=lambda p: p.id)]
        emit(rows, ["id", "title", "year", "venue", "concepts"], fmt)
        return
    rows = run(engine, out, "papers_for_concept", concept, narrower=not exact)
    emit(rows, ["id", "title", "mentions", "concepts"], fmt)


@click.command()
@out_argument
@click.option("--type", "ctype", type=click.Choice(CONCEPT_TYPES), help="Only this type.")
@engine_option
@format_option
def concepts(out: Path, ctype: str | None, engine: str, fmt: str) -> None:
    """List the concepts in OUT with their paper counts."""
    emit(run(engine, out, "concepts", type=ctype),
         ["label", "type", "papers", "aliases", "broader"], fmt)


@click.command()
@out_argument
@click.argument("paper_id", metavar="ID")
@engine_option
@format_option
def paper(out: Path, paper_id: str, engine: str, fmt: str) -> None:
    """Show one paper and its concepts, with the sentences that mention them."""
    row = run(engine, out, "paper", paper_id)
    if fmt == "json":
        json.dump(row, sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
        return
    if fmt == "table":
        click.echo(f"{row['id']}: {row['title']}")
        meta = " ".join(str(x) for x in (row["venue"], row["year"]) if x)
        if meta:
            click.echo(meta)
        click.echo("")
    emit([{**c, "evidence": c["evidence"][0]} for c in row["concepts"]],
         ["label", "type", "mentions", "evidence"], fmt, max_width=90)


COMMANDS = [papers, concepts, paper]
