"""``kg sparql``, ``kg related``, ``kg cooccur``, ``kg path``, ``kg stats``, ``kg export``,
``kg push-sparql``: raw SPARQL, the question helpers, exports and pushing to a server."""

from __future__ import annotations

import json
import sys
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
    timeout_option,
)
from kg.cli.query import say_topic
from kg.core.bounded import run_bounded
from kg.core.errors import Messages, QueryError
from kg.core.files import atomic_write
from kg.core.output import one_line, redact_uris

__all__ = ["COMMANDS", "cooccur", "export", "path", "push_sparql", "related", "sparql", "stats"]


@click.command(cls=OutFirst, needs=lambda params: 0 if params.get("file") else 1)
@out_argument
@after_out("query", "QUERY", required=False)
@click.option("--file", "file", type=click.Path(path_type=Path, dir_okay=False, exists=True),
              help="Read the query from FILE (.rq) instead of the command line.")
@format_option
@timeout_option
@click.option("--limit", type=click.IntRange(min=0), default=1000, show_default=True,
              help="Rows a table shows (0: all); csv and json stream every row.")
@click.option("--allow-service", is_flag=True,
              help="Let SERVICE clauses ask other SPARQL servers over the network.")
def sparql(out: Path, query: str | None, file: Path | None, fmt: str, timeout: float,
           limit: int, allow_service: bool) -> None:
    """Run a SPARQL SELECT, ASK or CONSTRUCT query on the store in OUT.

    The project prefixes (kgv:, kgc:, kgp:, skos:, dcterms:, schema:, prov:, rdf:,
    rdfs:, xsd:) are predefined. SELECT and ASK give a table, SPARQL results JSON
    or CSV; CONSTRUCT gives Turtle (table), JSON-LD (json) or N-Triples (csv).
    The query reads OUT only: SERVICE is refused unless --allow-service. It
    stops at --timeout and on Ctrl-C.
    """
    from queries.raw import write_query  # pyoxigraph: stores inside commands (see kg.cli)

    if query is not None and file is not None:
        raise QueryError(Messages.QUERY_ARGS)
    if file is not None:
        query = _read_query(file)
    if not query or not query.strip():
        raise QueryError(Messages.NO_QUERY)
    text = query
    width = table_width()
    sys.stdout.flush()
    left_out = run_bounded(lambda: write_query(out, text, fmt, sys.stdout.buffer,
                                               allow_service=allow_service,
                                               limit=limit or None, width=width),
                           timeout or None)
    sys.stdout.buffer.flush()
    if left_out:
        click.echo(Messages.ROWS_LEFT_OUT.format(n=left_out, limit=limit), err=True)


#: The largest query file read (a query is text a person writes; /dev/zero is not one).
MAX_QUERY_BYTES = 1 << 20


def _read_query(path: Path) -> str:
    with open(path, "rb") as f:
        data = f.read(MAX_QUERY_BYTES + 1)
    if len(data) > MAX_QUERY_BYTES:
        raise QueryError(Messages.QUERY_FILE.format(
            path=path, detail=f"longer than {MAX_QUERY_BYTES // 1024} KB; is it a query?"))
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise QueryError(Messages.QUERY_FILE.format(
            path=path, detail=f"not UTF-8 text (byte {e.start}); is it a query?")) from None


@click.command(cls=OutFirst)
@out_argument
@after_out("paper_id", "ID")
@click.option("--limit", type=click.IntRange(min=1), default=10, show_default=True)
@filter_options
@engine_option
@format_option
def related(out: Path, paper_id: str, limit: int, engine: str, fmt: str, filters: dict) -> None:
    """Papers that share concepts with paper ID (rare shared concepts count more)."""
    emit(ask(engine, out, "related_papers", paper_id, limit=limit, **filters),
         ["id", "score", "title", "shared"], fmt)


@click.command(cls=OutFirst)
@out_argument
@after_out("concept", "CONCEPT")
@click.option("--limit", type=click.IntRange(min=1), default=20, show_default=True)
@filter_options
@engine_option
@format_option
def cooccur(out: Path, concept: str, limit: int, engine: str, fmt: str, filters: dict) -> None:
    """Concepts that papers about CONCEPT (or a narrower one) also mention.

    CONCEPT is a topic as in ``kg papers --concept`` (stderr says how it was resolved).
    """
    rows = ask(engine, out, "cooccurring", concept, limit=limit, **filters)
    say_topic(engine, out, concept)
    emit(rows,
         ["label", "type", "papers", "paper_ids"], fmt)


@click.command(cls=OutFirst)
@out_argument
@after_out("a", "CONCEPT_A")
@after_out("b", "CONCEPT_B")
@filter_options
@engine_option
@format_option
def path(out: Path, a: str, b: str, engine: str, fmt: str, filters: dict) -> None:
    """The shortest path from CONCEPT_A to CONCEPT_B through papers, with evidence."""
    rows = ask(engine, out, "concept_path", a, b, **filters)
    if fmt == "table" and not rows:
        click.echo("(the two names are the same concept)")
        return
    if fmt == "table":
        for r in rows:
            click.echo(one_line(f"{r['step']}. {r['from_label']} → {r['to_label']}  "
                                f"via {r['paper']}: {r['title']}"))
            for s in dict.fromkeys(r["evidence_from"] + r["evidence_to"]):
                click.echo(one_line(f"     “{' '.join(s.split())}”"))
        return
    emit(rows, ["step", "from_label", "paper", "to_label", "evidence_from", "evidence_to"], fmt)


@click.command(cls=OutFirst)
@out_argument
@filter_options
@engine_option
@format_option
def stats(out: Path, engine: str, fmt: str, filters: dict) -> None:
    """Counts of papers, concepts (per type) and mentions; the most frequent concepts."""
    st = ask(engine, out, "stats", **filters)
    if fmt == "json":
        json.dump(st, sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
        return
    if fmt == "csv":
        emit([{"measure": k, "value": st[k]} for k in ("papers", "concepts", "mentions")]
             + [{"measure": f"concepts:{t}", "value": n} for t, n in st["by_type"].items()]
             + [{"measure": f"papers:{c['label']}", "value": c["papers"]}
                for c in st["top_concepts"]], ["measure", "value"], fmt)
        return
    click.echo(f"{st['papers']} papers, {st['concepts']} concepts, {st['mentions']} mentions")
    click.echo(one_line("concepts by type: "
                        + ", ".join(f"{t} {n}" for t, n in st["by_type"].items())))
    click.echo("")
    emit(st["top_concepts"], ["label", "papers"], fmt)


@click.command(cls=OutFirst)
@out_argument
@click.option("--format", "fmt", type=click.Choice(["turtle", "jsonld", "ntriples", "graphml",
                                                     "csv", "neo4j-csv"]),
              default="turtle", show_default=True,
              help="Export format; neo4j-csv writes a folder for neo4j-admin database import.")
@click.option("-o", "--output", type=click.Path(path_type=Path),
              help="Write to this file; - or none: standard output. With neo4j-csv, the "
                   "folder to write (required).")
def export(out: Path, fmt: str, output: Path | None) -> None:
    """Export the graph in OUT as Turtle, JSON-LD, N-Triples, GraphML, CSV or neo4j-admin CSV."""
    # stores inside commands (see kg.cli)
    from kg.core.errors import Messages, OutputError
    from kg.stores.export import FOLDER_FORMATS, export_folder
    from kg.stores.export import export as do_export

    if fmt in FOLDER_FORMATS:
        if output is None or str(output) == "-":
            raise OutputError(Messages.EXPORT_NEEDS_DIR.format(fmt=fmt))
        from kg.stores.neo4j_csv import import_command

        files = export_folder(out, fmt, output)
        click.echo(f"wrote {', '.join(str(f) for f in files)}", err=True)
        click.echo("import them into a stopped Neo4j 5 server with:", err=True)
        click.echo(import_command(output.resolve()))
        return
    if output is None or str(output) == "-":
        do_export(out, fmt, sys.stdout.buffer)
        sys.stdout.buffer.flush()
        return
    with atomic_write(output) as f:  # a failed export leaves the previous file as it was
        do_export(out, fmt, f)
    click.echo(f"wrote {output}", err=True)


@click.command("push-sparql", cls=OutFirst)
@out_argument
@click.option("--endpoint", required=True, metavar="URL",
              help="Graph Store Protocol URL (e.g. http://host:8890/sparql-graph-crud-auth), "
                   "or a SPARQL Update URL with --method update.")
@click.option("--graph", "graph", metavar="IRI", default=None,
              help="Named graph to replace (default: https://w3id.org/kg-abstracts/graph).")
@click.option("--method", type=click.Choice(["put", "update"]), default="put", show_default=True,
              help="put: Graph Store Protocol PUT; update: SPARQL Update DROP + INSERT DATA.")
@click.option("--user", default=None, help="User name (HTTP digest or basic auth).")
@click.option("--password", default=None, envvar="KG_SPARQL_PASSWORD",
              help="Password (or set KG_SPARQL_PASSWORD).")
def push_sparql(out: Path, endpoint: str, graph: str | None, method: str, user: str | None,
                password: str | None) -> None:
    """Load the graph in OUT into a named graph of a SPARQL server, replacing it."""
    from kg.stores.sparql_push import DEFAULT_GRAPH, push  # requests (see kg.cli)

    graph = graph or DEFAULT_GRAPH
    n = push(out, endpoint, graph=graph, method=method, user=user, password=password)
    click.echo(f"pushed {n} triples into <{graph}> at {redact_uris(endpoint)}", err=True)


COMMANDS = [sparql, related, cooccur, path, stats, export, push_sparql]
