"""``kg build`` and ``kg extract``."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

input_argument = click.argument(
    "inputs", nargs=-1, required=True, type=click.Path(path_type=Path, dir_okay=False))
lexicon_option = click.option(
    "--lexicon", "lexicons", multiple=True, type=click.Path(path_type=Path, dir_okay=False),
    help="Extra SKOS lexicon (Turtle); may be repeated.")
on_error_option = click.option(
    "--on-error", type=click.Choice(["stop", "skip"]), default="stop", show_default=True,
    help="Stop at the first bad record (exit status 2), or skip bad records and files, "
         "report how many and why on stderr, and go on (exit status 0).")


def _report_skipped(report) -> None:
    if report.skipped:
        click.echo(f"kg: skipped {len(report.skipped)} bad record(s):", err=True)
        for e in report.skipped[:20]:
            click.echo(f"  {e}", err=True)
        if len(report.skipped) > 20:
            click.echo(f"  … and {len(report.skipped) - 20} more", err=True)


@click.command()
@input_argument
@click.option("-o", "--out", type=click.Path(path_type=Path),  # kg.build checks it: one line
              default=Path("kg-out"), show_default=True, help="Output folder.")
@lexicon_option
@on_error_option
@click.option("--no-page", is_flag=True, help="Skip writing graph.html.")
@click.option("--incremental/--no-incremental", default=True, show_default=True,
              help="Reuse what an earlier build into OUT kept for unchanged texts and "
                   "papers (same result, less time).")
@click.option("--quiet", "-q", is_flag=True, help="No progress or summary.")
def build(inputs: tuple[Path, ...], out: Path, lexicons: tuple[Path, ...], on_error: str,
          no_page: bool, incremental: bool, quiet: bool) -> None:
    """Build the knowledge graph of INPUTS (.txt, .jsonl, .csv) into OUT.

    Writes OUT/graph.ttl, OUT/store/ (embedded SPARQL store), OUT/graph.html
    and OUT/model.json. OUT is replaced only when the build succeeds.
    """
    from kg.build import build as run_build

    result = run_build(inputs, out, lexicons=lexicons,
                       on_error="skip" if on_error == "skip" else "raise",
                       progress=not quiet and sys.stderr.isatty(), page=not no_page,
                       incremental=incremental)
    _report_skipped(result.report)
    if not quiet:
        s = result.summary()
        click.echo(
            f"built {out}: {s['papers']} papers, {s['concepts']} concepts, "
            f"{s['mentions']} mentions, {s['paper_concept_links']} paper–concept links, "
            f"{s['paper_paper_links']} paper–paper links, {s['triples']} triples")
        files = ["graph.ttl", "store/"] + ([] if no_page else ["graph.html"])
        click.echo(f"  wrote {', '.join(str(out / f) for f in files)}")


def _span_model(value: str | None):
    """``--span-model``: the installed model (unset), ``none``, or a spaCy pipeline directory."""
    if value is None:
        return True
    return False if value.lower() == "none" else Path(value)


span_model_option = click.option(
    "--span-model", default=None, metavar="DIR|none",
    help="Span model to use instead of the installed one: a spaCy pipeline directory, or "
         "'none' for lexicon, acronyms and patterns only (for evaluation).")


@click.command()
@input_argument
@lexicon_option
@on_error_option
@span_model_option
@click.option("--format", "fmt", type=click.Choice(["jsonl"]), default="jsonl",
              show_default=True, help="Output format.")
def extract(inputs: tuple[Path, ...], lexicons: tuple[Path, ...], on_error: str,
            span_model: str | None, fmt: str) -> None:
    """Extract concept mentions from INPUTS without building a graph.

    Prints one JSON object per paper: {"id", "mentions": [{"field", "start",
    "end", "text", "type", "concept", "accepted"}], "concepts": [{"id", "label",
    "type", "aliases", "accepted"[, "via"]}]}; offsets index the field exactly as read.
    Every term mention found is listed; "accepted" is false for those the
    termhood filter keeps out of the graph that `kg build` writes.
    """
    from extractors.acceptance import Rejected
    from extractors.evaluation import predictions
    from extractors.pipeline import extract_corpus
    from kg.core.readers import read_corpus

    report = read_corpus(inputs, on_error="skip" if on_error == "skip" else "raise")
    rejected = Rejected()
    kg = extract_corpus(report.papers, lexicons=lexicons, progress=sys.stderr.isatty(),
                        span_model=_span_model(span_model), rejected=rejected)
    _report_skipped(report)
    records = predictions(kg, rejected)
    out = sys.stdout
    for p in report.papers:
        out.write(json.dumps(records[p.id], ensure_ascii=False) + "\n")


COMMANDS = [build, extract]
