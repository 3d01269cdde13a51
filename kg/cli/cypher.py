"""``kg push``, ``kg cypher`` and ``kg serve``: the property graph over Bolt.

``kg push OUT --uri bolt://…`` writes a build into any Bolt server (Neo4j 5,
ArcadeDB …); ``kg serve OUT`` runs a local ArcadeDB server holding it;
``kg cypher "QUERY"`` asks either one. See ``docs/property-graph.md``.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import shlex
import signal
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import click
from click.core import ParameterSource

from kg.cli.options import OutFirst, emit, format_option, out_argument, timeout_option
from kg.core.bounded import QueryTimeout, run_bounded
from kg.core.errors import CredentialsError, Messages, QueryError, StoreError
from kg.core.layout import MODEL
from kg.core.output import redact_uris
from kg.core.processes import pid_alive
from queries.guards import cypher_forbidden

if TYPE_CHECKING:
    from kg.stores.bolt_server import BoltServer

__all__ = ["COMMANDS", "DEFAULT_PORT", "cypher", "cypher_line", "push", "serve"]

#: The Bolt port ``kg serve`` listens on unless told otherwise (Neo4j's).
DEFAULT_PORT = 7687


def _bolt_options(f):
    f = click.option("--database", default=None, metavar="NAME",
                     help="Database (default: $NEO4J_DATABASE, else the server's default).")(f)
    f = click.option("--password", default=None,
                     help="Password (default: $NEO4J_PASSWORD).")(f)
    f = click.option("--user", default=None, help="User (default: $NEO4J_USER, else neo4j).")(f)
    return click.option("--uri", default=None, metavar="URI",
                        help="Bolt server, e.g. bolt://localhost:7687 (default: $NEO4J_URI).")(f)


@click.command(cls=OutFirst)
@out_argument
@_bolt_options
@click.option("--batch-size", type=click.IntRange(min=1), default=2000, show_default=True,
              help="Rows per transaction.")
@click.option("--replace", is_flag=True,
              help="First delete every Paper and Concept already in the database.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar or summary.")
def push(out: Path, uri: str | None, user: str | None, password: str | None,
         database: str | None, batch_size: int, replace: bool, quiet: bool) -> None:
    """Push the graph built in OUT to a Bolt server (Neo4j 5 or compatible).

    Creates uniqueness constraints, then MERGEs papers, concepts, BROADER and
    MENTIONS in batches: pushing again changes nothing, and re-running an
    interrupted push completes it.
    """
    from kg.stores import bolt  # stores inside commands (see kg.cli)
    from kg.stores.out import load_model

    kg = load_model(out)
    if not bolt.settings(uri)["uri"]:
        raise StoreError(Messages.NO_BOLT_URI)
    with _which_credentials(out), \
            bolt.connect(uri, user=user, password=password, database=database) as graph:
        start = time.monotonic()
        written = bolt.push(kg, graph, batch_size=batch_size, replace=replace,
                            progress=not quiet and sys.stderr.isatty())
        took = time.monotonic() - start
        if not quiet:
            c = bolt.counts(graph)
            click.echo(f"pushed {out} to {redact_uris(graph.uri)}"
                       f"{' database ' + graph.database if graph.database else ''} in {took:.1f} s "
                       f"({sum(written.values())} rows): the database holds {c['Paper']} papers, "
                       f"{c['Concept']} concepts, {c['MENTIONS']} MENTIONS, "
                       f"{c['BROADER']} BROADER", err=True)


@contextlib.contextmanager
def _which_credentials(out: Path) -> Iterator[None]:
    """Refused credentials: say which ones the local server of ``out`` takes, if it is that one."""
    try:
        yield
    except CredentialsError as e:
        from kg.stores.bolt_server import READ_USER, load_state  # stores inside commands

        server = load_state(out)
        if server is not None and _same_server(e.uri, server.uri):
            raise CredentialsError(Messages.BOLT_AUTH_LOCAL.format(
                uri=e.uri, out=out, user=READ_USER, password=server.reader_password), e.uri
            ) from None
        raise CredentialsError(Messages.BOLT_AUTH_HINT.format(uri=e.uri), e.uri) from None


def _same_server(a: str, b: str) -> bool:
    local = {"localhost", "127.0.0.1", "::1"}
    ua, ub = urlsplit(a), urlsplit(b)
    return ua.port == ub.port and (ua.hostname == ub.hostname
                                   or {ua.hostname, ub.hostname} <= local)


def cypher_line(server: BoltServer, user: str, password: str) -> str:
    """A ``kg cypher`` command line that asks ``server`` as ``user``, ready to paste.

    Examples
    --------
    >>> from kg.stores.bolt_server import BoltServer
    >>> s = BoltServer(uri="bolt://127.0.0.1:7687", user="root", password="p w", database="kg",
    ...                pid=1, root="/tmp/x", http_port=2480)
    >>> print(cypher_line(s, "reader", "p w").replace(" --", "\\n  --"))
    kg cypher
      --uri bolt://127.0.0.1:7687
      --user reader
      --password 'p w'
      --database kg 'MATCH (p:Paper) RETURN count(p) AS papers'
    """
    parts = ["kg", "cypher", "--uri", server.uri, "--user", user, "--password", password,
             "--database", server.database, "MATCH (p:Paper) RETURN count(p) AS papers"]
    return " ".join(shlex.quote(p) for p in parts)


def _param(text: str) -> tuple[str, object]:
    name, sep, value = text.partition("=")
    if not sep or not name.strip().isidentifier():
        raise QueryError(Messages.BAD_PARAM.format(text=text))
    try:
        parsed = json.loads(value)
    except ValueError:
        parsed = value
    return name.strip(), parsed


def _plain(value: object) -> object:
    """Driver values (temporal, spatial …) as JSON-friendly values."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, (dt.date, dt.datetime, dt.time)) or hasattr(value, "iso_format"):
        return value.iso_format() if hasattr(value, "iso_format") else value.isoformat()
    return str(value)


@click.command()
@click.argument("query")
@click.option("--out", "out", type=click.Path(path_type=Path, file_okay=False),
              default=Path("kg-out"), show_default=True,
              help="Without --uri: the build whose local server to ask (started if needed).")
@_bolt_options
@click.option("--param", "params", multiple=True, metavar="NAME=VALUE",
              help="Query parameter $NAME; VALUE is read as JSON when it parses (numbers, "
                   "true, [lists], \"strings\"), else as text. Repeatable.")
@format_option
@timeout_option
@click.option("--limit", type=click.IntRange(min=0), default=1000, show_default=True,
              help="Rows to read at most (0: all).")
@click.option("--write", is_flag=True,
              help="Allow clauses that change the graph (CREATE, MERGE, SET, DELETE …). The "
                   "local server is a read-only view of --out otherwise, and loads --out again "
                   "at its next read-only use.")
def cypher(query: str, out: Path, uri: str | None, user: str | None, password: str | None,
           database: str | None, params: tuple[str, ...], fmt: str, timeout: float,
           limit: int, write: bool) -> None:
    """Run a Cypher QUERY with parameters, on --uri or on the local server of --out.

    Without --uri (and without $NEO4J_URI), the graph built in --out is served
    by a local ArcadeDB server, started in the background the first time and
    reused afterwards (stop it with 'kg serve OUT --stop'). The query only reads
    unless --write (and the local server never lets LOAD CSV read a file or a
    URL), stops at --timeout and on Ctrl-C, and reads at most --limit rows.

    \b
    kg cypher "MATCH (p:Paper)-[:MENTIONS]->(c:Concept {label: \\$l}) RETURN p.id" \\
        --param 'l="MinHash"'
    """
    from kg.stores import bolt  # stores inside commands (see kg.cli)

    values = dict(_param(p) for p in params)
    if not query.strip():
        raise QueryError(Messages.NO_QUERY_TEXT)
    clause = cypher_forbidden(query)
    if clause and not write:
        raise QueryError(Messages.CYPHER_WRITES.format(clause=clause))
    with _which_credentials(out):
        if bolt.settings(uri)["uri"]:
            graph = bolt.connect(uri, user=user, password=password, database=database)
        else:
            graph, _ = bolt.local_graph(out, write=write)

        def ask() -> tuple[list[str], list[dict], bool]:
            with graph:
                return graph.run_raw(query, values, write=write, timeout=timeout or None,
                                     limit=limit or None)

        try:
            columns, rows, more = run_bounded(ask, timeout or None)
        except (QueryTimeout, KeyboardInterrupt):
            graph.cancel()  # the server would go on with it (kg.stores.bolt.BoltGraph.cancel)
            raise
    emit([_plain(r) for r in rows], columns, fmt)
    if more:
        click.echo(Messages.ROWS_CUT.format(limit=limit), err=True)


@click.command(cls=OutFirst)
@out_argument
@click.option("--port", type=click.IntRange(1, 65535), default=DEFAULT_PORT, show_default=True,
              help="Bolt port on 127.0.0.1 (an error if OUT is already served on another).")
@click.option("--background", is_flag=True,
              help="Start the server, print how to reach it and return (stop it with --stop).")
@click.option("--stop", is_flag=True, help="Stop the server serving OUT.")
@click.option("--write", is_flag=True,
              help="Print the credentials of a user who may change the graph (the printed "
                   "user only reads otherwise); the next read-only use loads OUT again.")
@click.pass_context
def serve(ctx: click.Context, out: Path, port: int, background: bool, stop: bool,
          write: bool) -> None:
    """Serve the graph built in OUT over Bolt on 127.0.0.1 (a local ArcadeDB server).

    Prints the URI and credentials for any Bolt client (cypher-shell, the
    neo4j drivers): a user who may only read, unless --write; then a
    'kg cypher --uri …' line to paste. Ctrl-C stops it. While it runs,
    'kg cypher --out OUT' uses it. With --background, a server already serving
    OUT is reused (on another --port: an error naming it).
    """
    from kg.stores import bolt  # stores inside commands (see kg.cli)
    from kg.stores.bolt_server import READ_USER, forget_state, load_state, stop_server
    from kg.stores.out import require_built

    if stop:
        server = load_state(out)
        if server is None:
            raise StoreError(Messages.NOT_SERVED.format(out=out))
        stop_server(server)
        forget_state(out)
        click.echo(f"stopped the Bolt server at {server.uri} (pid {server.pid})", err=True)
        return
    require_built(out, MODEL)
    running = load_state(out)
    if running is not None:
        port_given = ctx.get_parameter_source("port") is ParameterSource.COMMANDLINE
        if port_given and urlsplit(running.uri).port != port:
            raise StoreError(Messages.PORT_CONFLICT.format(out=out, uri=running.uri,
                                                           pid=running.pid, port=port))
        if not background:
            raise StoreError(Messages.ALREADY_SERVED.format(out=out, uri=running.uri,
                                                            pid=running.pid))
    if background:
        graph, server = bolt.local_graph(out, port=port, progress=sys.stderr.isatty(),
                                         write=write)
        graph.close()
        _print_server(out, server, write, READ_USER)
        click.echo(f"stop it with: kg serve {out} --stop", err=True)
        return
    # Signals first: a Ctrl-C or SIGTERM at any moment from here on, also while the server
    # starts or right after its port opens, stops it.
    signal.signal(signal.SIGINT, signal.default_int_handler)  # even if started with INT ignored
    signal.signal(signal.SIGTERM, _interrupt)  # `kill` stops it as cleanly as Ctrl-C
    signal.signal(signal.SIGHUP, _interrupt)
    server = None
    try:
        graph, server = bolt.local_graph(out, port=port, progress=sys.stderr.isatty(),
                                         write=write)
        graph.close()
        _print_server(out, server, write, READ_USER)
        click.echo("press Ctrl-C to stop", err=True)
        while pid_alive(server.pid):
            time.sleep(0.5)
        raise StoreError(Messages.SERVER_EXITED.format(uri=server.uri))
    except KeyboardInterrupt:
        pass
    finally:
        _shut_down(out, server)
    click.echo("stopped", err=True)


def _print_server(out: Path, server, write: bool, reader: str) -> None:
    # the address is what the command gives: stdout; what to do next: stderr
    user, password = (server.user, server.password) if write else (reader,
                                                                    server.reader_password)
    click.echo(f"serving {out} at {server.uri}  user {user}  password {password}"
               f"  database {server.database}  (pid {server.pid})"
               f"{'' if write else '  (read-only)'}")
    click.echo(cypher_line(server, user, password))


def _shut_down(out: Path, server) -> None:
    """Stop the server this ``kg serve`` started, once, whatever signals still arrive."""
    from kg.stores.bolt_server import forget_state, load_state, stop_server

    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.SIG_IGN)  # a second Ctrl-C must not cut the shutdown short
    # interrupted inside local_graph: the server it started is the one remembered for OUT
    server = server or load_state(out)
    if server is not None:
        stop_server(server)
        forget_state(out, server)


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


COMMANDS = [push, cypher, serve]
