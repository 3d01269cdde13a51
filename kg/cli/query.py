"""``kg papers``, ``kg concepts`` and ``kg paper``: the first questions."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import click

from kg.cli.options import (
    OutFirst,
    after_out,
    ask,
    emit,
    engine_option,
    filter_options,
    format_option,
    out_argument,
    table_width,
)
from kg.core.model import CONCEPT_TYPES
from kg.core.output import one_line

__all__ = ["COMMANDS", "concepts", "paper", "papers", "say_topic", "trends"]


def say_topic(engine: str, out: Path, text: str) -> None:
    """Say on stderr how the topic ``text`` was resolved (concept, family or text)."""
    click.echo(one_line(f"topic {ask(engine, out, 'topic', text)['note']}"), err=True)


@click.command(cls=OutFirst)
@out_argument
@click.option("--concept", "concept", metavar="TEXT",
              help="Only papers about this topic: a concept (label, alias or acronym) or a "
                   "narrower one, else the concepts whose names contain the words, else the "
                   "papers whose title or abstract says them (stderr says which).")
@click.option("--exact", is_flag=True, help="With --concept: leave out narrower concepts.")
@filter_options
@engine_option
@format_option
def papers(out: Path, concept: str | None, exact: bool, engine: str, fmt: str,
           filters: dict) -> None:
    """List the papers in OUT, or those about a topic (with year and venue)."""
    if concept is None:
        emit(ask(engine, out, "papers", **filters), ["id", "title", "year", "venue", "concepts"],
             fmt)
        return
    rows = ask(engine, out, "papers_for_concept", concept, narrower=not exact, **filters)
    say_topic(engine, out, concept)
    if fmt != "json":  # a word in tables and CSV: the paper is about the topic or mentions it
        rows = [{**r, "about": "about" if r["about"] else "mentions"} for r in rows]
    emit(rows, ["id", "title", "year", "venue", "about", "mentions", "concepts"], fmt)


@click.command(cls=OutFirst)
@out_argument
@click.option("--type", "ctype", type=click.Choice(CONCEPT_TYPES), help="Only this type.")
@filter_options
@engine_option
@format_option
def concepts(out: Path, ctype: str | None, engine: str, fmt: str, filters: dict) -> None:
    """List the concepts in OUT with their paper counts (among the papers filtered)."""
    emit(ask(engine, out, "concepts", type=ctype, **filters),
         ["label", "type", "papers", "aliases", "broader"], fmt)


@click.command(cls=OutFirst)
@out_argument
@after_out("paper_id", "ID")
@engine_option
@format_option
def paper(out: Path, paper_id: str, engine: str, fmt: str) -> None:
    """Show one paper and its concepts, with the sentences that mention them, and the
    relations between concepts it states (tables and JSON).

    Each concept has its salience (0 to 1) and whether the paper is about it (its best
    concepts) or merely mentions it; the concepts it is about come first.
    """
    row = ask(engine, out, "paper", paper_id)
    if fmt == "json":
        json.dump(row, sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
        return
    if fmt == "table":
        width = table_width()
        head = one_line(f"{row['id']}: {row['title']}")
        click.echo(textwrap.fill(head, width) if width else head)
        meta = " ".join(str(x) for x in (row["venue"], row["year"]) if x)
        if meta:
            click.echo(one_line(meta))
        click.echo("")
    emit([{**c, "evidence": c["evidence"][0], "about": "about" if c["about"] else "mentions"}
          for c in row["concepts"]],
         ["label", "type", "about", "salience", "mentions", "evidence"], fmt)
    if fmt == "table" and row["relations"]:  # CSV is one table: the concepts (JSON has both)
        click.echo("\nrelations the paper states:\n")
        emit(row["relations"], ["head", "relation", "tail", "evidence"], fmt)


@click.command(cls=OutFirst)
@out_argument
@click.option("--from", "start", type=int, default=None, metavar="YEAR",
              help="The earlier year [default: the first year of OUT].")
@click.option("--to", "end", type=int, default=None, metavar="YEAR",
              help="The later year [default: the last year of OUT].")
@click.option("--min-papers", type=click.IntRange(1), default=3, show_default=True,
              help="List a concept only when this many papers of one of the years mention it.")
@click.option("--limit", type=click.IntRange(1), default=20, show_default=True,
              help="Rising and falling concepts to show at most (each).")
@click.option("--venue", default=None, metavar="NAME", help="Only papers of this venue.")
@engine_option
@format_option
def trends(out: Path, start: int | None, end: int | None, min_papers: int, limit: int,
           venue: str | None, engine: str, fmt: str) -> None:
    """Concepts rising and falling from one year to another (share of each year's papers)."""
    result = ask(engine, out, "trends", start=start, end=end, min_papers=min_papers,
                 limit=limit, venue=venue)
    for note in result["notes"]:
        click.echo(one_line(f"note: {note}"), err=True)
    if fmt == "json":
        json.dump(result, sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
        return
    columns = ["trend", "label", "type", "papers_from", "papers_to", "share_from", "share_to",
               "change"]
    if fmt == "table":
        click.echo(one_line(f"{result['from']}: {result['papers_from']} papers → "
                            f"{result['to']}: {result['papers_to']} papers (concepts in at "
                            f"least {min_papers} papers of one year; share = papers mentioning "
                            "it / papers of the year)") + "\n")
    emit(result["rows"], columns, fmt)


COMMANDS = [papers, concepts, paper, trends]
