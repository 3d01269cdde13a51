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
@click.option("--quiet", "-q", is_flag=True, help="No progress or summary.")
def build(inputs: tuple[Path, ...], out: Path, lexicons: tuple[Path, ...], on_error: str,
          no_page: bool, quiet: bool) -> None:
    """Build the knowledge graph of INPUTS (.txt, .jsonl, .csv) into OUT.

    Writes OUT/graph.ttl, OUT/store/ (embedded SPARQL store), OUT/graph.html
    and OUT/model.json. OUT is replaced only when the build succeeds.
    """
    from kg.build import build as run_build

    result = run_build(inputs, out, lexicons=lexicons,
                       on_error="skip" if on_error == "skip" else "raise",
                       progress=not quiet and sys.stderr.isatty(), page=not no_page)
    _report_skipped(result.report)
    if not quiet:
        s = result.summary()
        click.echo(
            f"built {out}: {s['papers']} papers, {s['concepts']} concepts, "
            f"{s['mentions']} mentions, {s['paper_concept_links']} paper–concept links, "
            f"{s['paper_paper_links']} paper–paper links, {s['triples']} triples")
        files = ["graph.ttl", "store/"] + ([] if no_page else ["graph.html"])
        click.echo(f"  wrote {', '.join(str(out / f) for f in files)}")


@click.command()
@input_argument
@lexicon_option
@on_error_option
@click.option("--format", "fmt", type=click.Choice(["jsonl"]), default="jsonl",
              show_default=True, help="Output format.")
def extract(inputs: tuple[Path, ...], lexicons: tuple[Path, ...], on_error: str,
            fmt: str) -> None:
    """Extract concept mentions from INPUTS without building a graph.

    Prints one JSON object per paper: {"id", "mentions": [{"field", "start",
    "end", "text", "type", "concept"}], "concepts": [{"id", "label", "type",
    "aliases"}]}; offsets index the field exactly as read.
    """
    from extractors.pipeline import extract_corpus
    from kg.readers import read_corpus

    report = read_corpus(inputs, on_error="skip" if on_error == "skip" else "raise")
    kg = extract_corpus(report.papers, lexicons=lexicons, progress=sys.stderr.isatty())
    _report_skipped(report)
    out = sys.stdout
    for p in report.papers:
        mentions = kg.mentions_by_paper.get(p.id, [])
        cids = sorted({m.concept for m in mentions})
        out.write(json.dumps({
            "id": p.id,
            "mentions": [{"field": m.field, "start": m.start, "end": m.end, "text": m.text,
                          "type": kg.concepts[m.concept].type, "concept": m.concept}
                         for m in mentions],
            "concepts": [{"id": c, "label": kg.concepts[c].label, "type": kg.concepts[c].type,
                          "aliases": sorted(set(kg.concepts[c].aliases))} for c in cids],
        }, ensure_ascii=False) + "\n")


COMMANDS = [build, extract]
