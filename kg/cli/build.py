"""``kg build`` and ``kg extract``."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable
from pathlib import Path

import click

from kg.cli.options import lexicon_option, span_model_choice, span_model_option
from kg.core.model import Paper
from kg.core.output import one_line
from kg.core.readers import INPUT_FORMATS, ReadReport, read_corpus

__all__ = [
    "COMMANDS", "build", "extract", "extract_predictions", "input_argument", "json_line",
    "input_format_option", "on_error_option",
]

# readable=False: the reader reports an unreadable file as one line, and skips it with
# --on-error skip (click would stop at a usage error)
input_argument = click.argument(
    "inputs", nargs=-1, required=True,
    type=click.Path(path_type=Path, dir_okay=False, readable=False))
input_format_option = click.option(
    "--input-format", type=click.Choice(list(INPUT_FORMATS)), default=None,
    help="Read every input in this format, whatever its suffix (default: by suffix; "
         "'-', standard input, is JSON Lines if it starts with '{', else plain text).")
on_error_option = click.option(
    "--on-error", type=click.Choice(["stop", "skip"]), default="stop", show_default=True,
    help="Stop at the first bad record (exit status 2), or skip bad records and files, "
         "report how many and why on stderr, and go on (exit status 0).")


def _report_skipped(report: ReadReport) -> None:
    for w in report.warnings:
        click.echo(f"kg: warning: {one_line(str(w))}", err=True)
    if report.skipped:
        click.echo(f"kg: skipped {len(report.skipped)} bad record(s):", err=True)
        for e in report.skipped[:20]:
            click.echo(f"  {one_line(str(e))}", err=True)
        if len(report.skipped) > 20:
            click.echo(f"  … and {len(report.skipped) - 20} more", err=True)


@click.command()
@input_argument
@click.option("-o", "--out", type=click.Path(path_type=Path),  # kg.build checks it: one line
              default=Path("kg-out"), show_default=True, help="Output folder.")
@input_format_option
@lexicon_option
@on_error_option
@click.option("--no-page", is_flag=True, help="Skip writing graph.html.")
@click.option("--incremental/--no-incremental", default=True, show_default=True,
              help="Reuse what an earlier build into OUT kept for unchanged texts and "
                   "papers (same result, less time).")
@click.option("--workers", type=click.IntRange(min=1), default=None,
              help="Extraction processes, on a local Dask cluster (127.0.0.1); 1 runs in this "
                   "process. Default: every core for 1,000 texts or more, else 1.")
@click.option("--scheduler", metavar="tcp://HOST:PORT", default=None,
              help="Run extraction on the existing Dask cluster of this scheduler instead "
                   "(its workers need kg-abstracts installed). Same output either way.")
@click.option("--quiet", "-q", is_flag=True, help="No progress or summary.")
def build(inputs: tuple[Path, ...], out: Path, input_format: str | None,
          lexicons: tuple[Path, ...], on_error: str, no_page: bool, incremental: bool,
          workers: int | None, scheduler: str | None, quiet: bool) -> None:
    """Build the knowledge graph of INPUTS (.txt, .jsonl, .csv; - reads stdin) into OUT.

    Writes OUT/graph.ttl, OUT/store/ (embedded SPARQL store), OUT/graph.html
    and OUT/model.json. OUT is replaced only when the build succeeds. The
    summary goes to stderr.
    """
    # the build and its stores (~0.1 s, then spaCy once the input is read): only here
    from kg.build import build as run_build

    result = run_build(inputs, out, lexicons=lexicons,
                       on_error="skip" if on_error == "skip" else "raise",
                       progress=not quiet and sys.stderr.isatty(), page=not no_page,
                       incremental=incremental, input_format=input_format,
                       workers=workers, scheduler=scheduler)
    _report_skipped(result.report)
    if not quiet:
        s = result.summary()
        click.echo(
            f"built {out}: {s['papers']} papers, {s['concepts']} concepts, "
            f"{s['mentions']} mentions, {s['paper_concept_links']} paper–concept links, "
            f"{s['paper_paper_links']} paper–paper links, {s['relations']} concept–concept "
            f"relations, {s['triples']} triples", err=True)
        files = ["graph.ttl", "store/"] + ([] if no_page else ["graph.html"])
        click.echo(f"  wrote {', '.join(str(out / f) for f in files)}", err=True)


def extract_predictions(papers: list[Paper], lexicons: Iterable[Path],
                        span_model: str | None) -> dict[str, dict]:
    """Extract ``papers`` as ``kg extract`` does: paper id -> its JSON record.

    ``span_model`` is the ``--span-model`` value; every term mention found is kept,
    with ``"accepted": false`` for those the termhood filter leaves out of the graph.
    """
    # spaCy and the extraction pipeline (~0.6 s): only for the commands that extract
    from extractors.acceptance import Rejected
    from extractors.evaluation import predictions
    from extractors.pipeline import extract_corpus

    rejected = Rejected()
    graph = extract_corpus(papers, lexicons=lexicons, progress=sys.stderr.isatty(),
                           span_model=span_model_choice(span_model), rejected=rejected)
    return predictions(graph, rejected)


#: Characters JSON allows raw in strings but that line splitters (``str.splitlines``,
#: JavaScript) take for line ends: escaped, so that one record stays one line.
_LINE_BREAKS = {ord("\u2028"): "\\u2028", ord("\u2029"): "\\u2029", ord("\x85"): "\\u0085"}


def json_line(record: dict) -> str:
    r"""``record`` as one line of JSON Lines, non-ASCII kept, line-breaking characters escaped.

    >>> json_line({"evidence": "a\u2028b é"})
    '{"evidence": "a\\u2028b é"}\n'
    """
    return json.dumps(record, ensure_ascii=False).translate(_LINE_BREAKS) + "\n"


@click.command()
@input_argument
@input_format_option
@lexicon_option
@on_error_option
@span_model_option
@click.option("--format", "fmt", type=click.Choice(["jsonl"]), default="jsonl",
              show_default=True, help="Output format.")
def extract(inputs: tuple[Path, ...], input_format: str | None, lexicons: tuple[Path, ...],
            on_error: str, span_model: str | None, fmt: str) -> None:
    """Extract concept mentions and relations from INPUTS (- reads stdin), no graph built.

    Prints one JSON object per paper: {"id", "mentions": [{"field", "start",
    "end", "text", "type", "concept", "accepted"}], "concepts": [{"id", "label",
    "type", "aliases", "accepted"[, "via"]}], "relations": [{"type", "head": {"field",
    "start", "end", "text"}, "tail": {...}, "score", "evidence"}]}; offsets index the
    field exactly as read; relations are SciERC's seven types, head and tail in its
    direction ("head used-for tail").
    Every term mention found is listed; "accepted" is false for those the
    termhood filter keeps out of the graph that `kg build` writes.
    """
    report = read_corpus(inputs, on_error="skip" if on_error == "skip" else "raise",
                         input_format=input_format)
    records = extract_predictions(report.papers, lexicons, span_model)
    _report_skipped(report)
    out = sys.stdout
    for p in report.papers:
        out.write(json_line(records[p.id]))


COMMANDS = [build, extract]
