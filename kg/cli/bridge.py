"""``kg bridge``: the papers that bridge two topics, and why (``docs/bridges.md``)."""

from __future__ import annotations

import csv
import json
import sys
import textwrap
from pathlib import Path
from typing import TextIO

import click

from kg.cli.options import (
    OutFirst,
    after_out,
    ask,
    engine_option,
    filter_options,
    format_option,
    out_argument,
)
from kg.core.output import one_line
from queries.bridging import DEFAULT_HUB_SHARE, HUB_MIN_PAPERS

__all__ = ["COMMANDS", "CSV_COLUMNS", "WIDTH", "bridge", "csv_rows", "path_text", "write_table"]

WIDTH = 100
CSV_COLUMNS = ["kind", "rank", "id", "title", "score", "a_concepts", "b_concepts",
               "a_evidence", "b_evidence", "path"]


def _clean(text: object) -> str:
    """One line of text: whitespace runs become one space, control characters escapes."""
    return one_line(" ".join(str(text).split()))


def _quote(sentence: str, indent: str) -> str:
    return textwrap.fill(f"“{_clean(sentence)}”", WIDTH, initial_indent=indent,
                         subsequent_indent=indent + " ", max_lines=3, placeholder=" …”")


def _first(evidence: list[dict], side: str) -> dict | None:
    return next((e for e in evidence if e["side"] == side), None)


def path_text(path: list[dict]) -> str:
    """A connector's path on one line: concepts by label, papers by id.

    Examples
    --------
    >>> path_text([{"kind": "concept", "label": "DP"}, {"kind": "paper", "id": "p6"},
    ...            {"kind": "concept", "label": "generative model"}])
    'DP → [p6] → generative model'
    """
    return " → ".join(_clean(s["label"]) if s["kind"] == "concept" else f"[{_clean(s['id'])}]"
                      for s in path)


def write_table(result: dict, stream: TextIO) -> None:
    """The human-readable answer: both topics, bridges with evidence, then connectors."""
    w = stream.write
    for key in ("a", "b"):
        t = result[key]
        how = t.get("resolved", "concept")
        how = "" if how == "concept" else ("family of names, " if how == "family"
                                           else "words in titles and abstracts, ")
        w(f"{key.upper()}: {_clean(t['label'])} ({how}{len(t['concepts'])} concept"
          f"{'s' if len(t['concepts']) != 1 else ''}, {t['papers']} paper"
          f"{'s' if t['papers'] != 1 else ''})\n")
    for note in result.get("notes", []):
        w(f"note: {_clean(note)}\n")
    w("\n")
    if result["bridges"]:
        w("Bridges: papers about both topics, best first\n")
    elif result["a"]["papers"] and result["b"]["papers"]:
        w("Bridges: no paper mentions both topics\n")
    for i, r in enumerate(result["bridges"], start=1):
        w(f"\n{i:>2}. {_clean(r['id'])}  score {r['score']:.3f}\n")
        w(textwrap.fill(_clean(r["title"]), WIDTH, initial_indent="    ",
                        subsequent_indent="    ", max_lines=2, placeholder=" …") + "\n")
        for side in ("a", "b"):
            concepts = ", ".join(_clean(c) for c in r[f"{side}_concepts"])
            w(f"    {side.upper()}: {concepts}\n")
            e = _first(r["evidence"], side)
            if e:
                w(_quote(e["sentence"], "       ") + "\n")
    if result["connectors"]:
        direct = "no direct bridge" if not result["bridges"] else "few direct bridges"
        kind = result["connectors"][0]["kind"]
        w(f"\nConnectors ({direct}): "
          + ("concepts that papers of each side share\n" if kind == "concept"
             else "the shortest path between the topics through papers\n"))
    for i, c in enumerate(result["connectors"], start=1):
        score = f"  score {c['score']:.3f}" if c["score"] is not None else ""
        papers = (f"  ({len(c['a_papers'])} A-paper{'s' if len(c['a_papers']) != 1 else ''}, "
                  f"{len(c['b_papers'])} B-paper{'s' if len(c['b_papers']) != 1 else ''})"
                  if c["kind"] == "concept" else "")
        w(f"\n{i:>2}. {_clean(c['label'])}{score}{papers}\n")
        w(textwrap.fill(path_text(c["path"]), WIDTH, initial_indent="    path: ",
                        subsequent_indent="          ") + "\n")
        said: dict[tuple[str, str], list[str]] = {}  # one quote for concepts in one sentence
        for e in c["evidence"]:
            if e["sentence"]:
                said.setdefault((e["paper"], e["sentence"]), []).append(_clean(e["concept"]))
        for (paper, sentence), concepts in said.items():
            w(f"    [{_clean(paper)}] {', '.join(dict.fromkeys(concepts))}:\n")
            w(_quote(sentence, "       ") + "\n")


def csv_rows(result: dict) -> list[list[str]]:
    """One CSV row per bridge, then per connector (lists joined with "; ")."""
    rows = []
    for i, r in enumerate(result["bridges"], start=1):
        ev = {s: (_first(r["evidence"], s) or {}).get("sentence", "") for s in ("a", "b")}
        rows.append(["bridge", i, r["id"], r["title"], r["score"], "; ".join(r["a_concepts"]),
                     "; ".join(r["b_concepts"]), ev["a"], ev["b"], ""])
    for i, c in enumerate(result["connectors"], start=1):
        ev = {s: (_first(c["evidence"], s) or {}).get("sentence", "") for s in ("a", "b")}
        rows.append([c["kind"] if c["kind"] == "path" else "connector", i, c["id"] or "",
                     c["label"], "" if c["score"] is None else c["score"],
                     "; ".join(c["a_papers"]), "; ".join(c["b_papers"]), ev["a"], ev["b"],
                     path_text(c["path"])])
    return [[_clean(v) for v in row] for row in rows]


@click.command(cls=OutFirst)
@out_argument
@after_out("topic_a", "A")
@after_out("topic_b", "B")
@engine_option
@click.option("--limit", type=click.IntRange(1), default=10, show_default=True,
              help="Bridges and connectors to show at most.")
@click.option("--hub-share", type=click.FloatRange(0, 1, min_open=True),
              default=DEFAULT_HUB_SHARE, show_default=True,
              help="Concepts in more than this share of the papers (and more than "
                   f"{HUB_MIN_PAPERS}) are hubs, never connectors.")
@click.option("--all-mentions", is_flag=True,
              help="Count every paper–concept link, not only the concepts a paper is about.")
@filter_options
@format_option
def bridge(out: Path, topic_a: str, topic_b: str, engine: str, limit: int, hub_share: float,
           all_mentions: bool, fmt: str, filters: dict) -> None:
    """Find the papers that bridge topics A and B in OUT, and say why.

    Each topic is a concept (label, alias or acronym) with its narrower
    concepts, else the concepts whose names contain its words, else the papers
    whose title or abstract says them (stderr says which). Papers about both
    are ranked by how specific their concepts are and how strongly they are
    about each side; with few of them, concepts that papers of each side share
    ("connectors", hubs left out) are listed with a path. Only the concepts a paper is
    about (its best concepts by salience) count, unless --all-mentions.
    """
    result = ask(engine, out, "bridges", topic_a, topic_b, limit=limit, hub_share=hub_share,
                 all_mentions=all_mentions, **filters)
    for key in ("a", "b"):
        click.echo(f"topic {key.upper()}: {_clean(result[key]['note'])}", err=True)
    if fmt == "json":
        json.dump(result, sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
    elif fmt == "csv":
        w = csv.writer(sys.stdout, lineterminator="\n")
        w.writerow(CSV_COLUMNS)
        w.writerows(csv_rows(result))
        for note in result.get("notes", []):
            click.echo(f"note: {_clean(note)}", err=True)
    else:
        write_table(result, sys.stdout)


COMMANDS = [bridge]
