"""The property graph on a Bolt server (Neo4j 5, or the local ArcadeDB server).

The local server: :mod:`kg.stores.bolt_server`.

Schema (see ``docs/property-graph.md``)::

    (:Paper   {id, title, abstract, year, venue, url, keywords})
    (:Concept {id, label, type, aliases, hidden, origin, definition, idf, papers})
    (:Paper)-[:MENTIONS {count, title, evidence, first, salience, about}]->(:Concept)
    (:Concept)-[:BROADER]->(:Concept)
    (:Concept)-[:USED_FOR {count, papers, evidence}]->(:Concept)   and FEATURE_OF,
        HYPONYM_OF, PART_OF, COMPARE, CONJUNCTION, EVALUATE_FOR (RELATIONSHIP_TYPES)

``idf`` is ``ln(N / df)`` and ``papers`` is ``df`` (so no engine needs a logarithm
at query time); ``evidence`` lists the distinct sentences of the mentions in text
order and ``first`` is the rank of the first one among the paper's mentions
(see :func:`mention_rows`); ``title`` counts the mentions in the title; ``salience`` and
``about`` say how central the concept is to the paper (:mod:`kg.core.salience`). A relation edge
between two concepts (:attr:`kg.core.model.KnowledgeGraph.relation_edges`) has ``count``
(sentences stating it), ``papers`` (their ids, sorted) and ``evidence`` (each paper's first
sentence stating it, in the order of ``papers``), so the papers are reached by id.

:func:`push` writes a :class:`~kg.core.model.KnowledgeGraph` with batched
``UNWIND $rows … MERGE`` statements, each batch in its own managed write
transaction: pushing twice changes nothing, and a push that was interrupted is
completed by running it again. Values always travel as parameters.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kg.core.errors import CredentialsError, Messages, QueryError, StoreError
from kg.core.layout import MODEL
from kg.core.model import RELATION_TYPES, KnowledgeGraph
from kg.stores.bolt_server import (
    BoltServer,
    file_sha256,
    load_state,
    save_state,
    start_server,
    state_dir,
    stop_server,
)
from kg.stores.out import load_model, require_built

__all__ = [
    "BOLT_SCHEMES", "BoltGraph", "CONSTRAINTS", "ENV", "MERGE_BROADER", "MERGE_CONCEPTS",
    "MERGE_MENTIONS", "MERGE_PAPERS", "RELATIONSHIP_TYPES", "WRITTEN", "bolt_errors",
    "broader_rows", "clear", "concept_rows", "connect", "counts", "ensure_schema",
    "load_served", "local_graph", "mention_rows", "merge_relation", "open_bolt_graph",
    "paper_rows", "push", "relation_rows", "settings",
]

#: Environment variables read by :func:`connect` (and ``kg push`` / ``kg cypher``).
ENV = {"uri": "NEO4J_URI", "user": "NEO4J_USER", "password": "NEO4J_PASSWORD",
       "database": "NEO4J_DATABASE"}

#: URI schemes of the Bolt protocol (direct, routed; with TLS).
BOLT_SCHEMES = ("bolt", "bolt+s", "bolt+ssc", "neo4j", "neo4j+s", "neo4j+ssc")

#: Neo4j 5 uniqueness constraints (each also creates the index MERGE needs).
CONSTRAINTS = (
    "CREATE CONSTRAINT kg_paper_id IF NOT EXISTS FOR (p:Paper) REQUIRE p.id IS UNIQUE",
    "CREATE CONSTRAINT kg_concept_id IF NOT EXISTS FOR (c:Concept) REQUIRE c.id IS UNIQUE",
)

MERGE_CONCEPTS = """
UNWIND $rows AS r
MERGE (c:Concept {id: r.id})
SET c += r.props
"""
MERGE_PAPERS = """
UNWIND $rows AS r
MERGE (p:Paper {id: r.id})
SET p += r.props
"""
MERGE_BROADER = """
UNWIND $rows AS r
MATCH (a:Concept {id: r.narrower}), (b:Concept {id: r.broader})
MERGE (a)-[:BROADER]->(b)
"""
MERGE_MENTIONS = """
UNWIND $rows AS r
MATCH (p:Paper {id: r.paper}), (c:Concept {id: r.concept})
MERGE (p)-[m:MENTIONS]->(c)
SET m.count = r.count, m.title = r.title, m.evidence = r.evidence, m.first = r.first,
    m.salience = r.salience, m.about = r.about
"""

#: The relationship type of each relation type (``used-for`` → ``USED_FOR``). Cypher cannot
#: take a relationship type as a parameter, so statements name one of these fixed words.
RELATIONSHIP_TYPES = {t: t.upper().replace("-", "_") for t in RELATION_TYPES}


def merge_relation(relation_type: str) -> str:
    """The ``UNWIND $rows … MERGE`` statement of one relation type (:func:`relation_rows`)."""
    return f"""
UNWIND $rows AS r
MATCH (a:Concept {{id: r.head}}), (b:Concept {{id: r.tail}})
MERGE (a)-[e:{RELATIONSHIP_TYPES[relation_type]}]->(b)
SET e.count = r.count, e.papers = r.papers, e.evidence = r.evidence
"""


# -- connecting ----------------------------------------------------------------------------

@dataclass
class BoltGraph:
    """A graph on a Bolt server: an open driver and the database to use.

    Use :func:`connect` to make one; close it with :meth:`close` or a ``with`` block.
    """

    driver: Any
    database: str | None
    uri: str
    #: per-connection cache (the concept index of :mod:`queries.cypher`).
    cache: dict = field(default_factory=dict, repr=False)
    #: the local server's HTTP address and this connection's credentials, where
    #: :meth:`cancel` ends the queries still running (``None``: a server of ``--uri``)
    admin: tuple[str, tuple[str, str]] | None = field(default=None, repr=False)
    #: a comment ending each query sent to the local server, so :meth:`cancel` finds them
    mark: str = field(default_factory=lambda: f"kg-{secrets.token_hex(8)}", repr=False)

    def _marked(self, query: str) -> str:
        # at the end: ArcadeDB reads EXPLAIN and PROFILE from the start of the text
        return query if self.admin is None else f"{query}\n/* {self.mark} */"

    def cancel(self) -> int:
        """End the queries of this connection that still run on the local server.

        A query that ``kg`` stopped waiting for (``--timeout``, Ctrl-C) runs on in ArcadeDB:
        it ignores Bolt's transaction timeout and goes on when the client closes the
        connection. Its HTTP API lists the running queries and terminates one (a user may
        end their own). Best effort: returns how many were ended, 0 for a server of
        ``--uri`` (Neo4j ends a query at its transaction timeout) or when the HTTP API does
        not answer.
        """
        if self.admin is None:
            return 0
        import requests

        url, auth = self.admin
        ended = 0
        try:
            listed = requests.post(url, json={"command": "list queries"}, auth=auth,
                                   timeout=5).json()["result"]
            for q in listed:
                qid = str(q.get("id", ""))
                if self.mark in str(q.get("text", "")) and re.fullmatch(r"[\w.-]+", qid):
                    requests.post(url, json={"command": f"terminate query {qid}"}, auth=auth,
                                  timeout=5).raise_for_status()
                    ended += 1
        except (requests.RequestException, ValueError, KeyError, TypeError, AttributeError):
            pass
        return ended

    def run(self, query: str, params: dict | None = None, *, write: bool = False) -> list[dict]:
        """Run ``query`` with ``params`` in a managed transaction; return the rows as dicts.

        Examples
        --------
        >>> g = connect("bolt://127.0.0.1:7687")  # doctest: +SKIP
        >>> g.run("RETURN $x AS x", {"x": "it's"})  # doctest: +SKIP
        [{'x': "it's"}]
        """
        import neo4j

        routing = neo4j.RoutingControl.WRITE if write else neo4j.RoutingControl.READ
        with bolt_errors(self.uri, self.database):
            records, _, _ = self.driver.execute_query(
                self._marked(query), params or {}, database_=self.database, routing_=routing)
        return [r.data() for r in records]

    def run_raw(self, query: str, params: dict | None = None, *, write: bool = False,
                timeout: float | None = None, limit: int | None = None,
                ) -> tuple[list[str], list[dict], bool]:
        """Run a user's query once (auto-commit); return ``(columns, rows, more)``.

        The session is a read session unless ``write`` (servers that check the access
        mode, as Neo4j does, then refuse writes); ``timeout`` (seconds) is passed to
        the server as the transaction's timeout. At most ``limit`` rows are read
        (``more``: the query had more), so a huge result does not fill memory.
        """
        import itertools

        import neo4j

        mode = neo4j.WRITE_ACCESS if write else neo4j.READ_ACCESS
        with bolt_errors(self.uri, self.database, user_query=True), \
                self.driver.session(database=self.database, default_access_mode=mode) as session:
            result = session.run(neo4j.Query(self._marked(query), timeout=timeout), params or {})
            rows = [r.data() for r in itertools.islice(result, limit)]
            more = limit is not None and result.peek() is not None
            return list(result.keys()), rows, more

    def close(self) -> None:
        """Close the driver."""
        self.driver.close()

    def __enter__(self) -> BoltGraph:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@contextlib.contextmanager
def bolt_errors(uri: str, database: str | None, *, user_query: bool = False) -> Iterator[None]:
    """Turn driver exceptions into one-line :class:`~kg.core.errors.KGError` messages."""
    from neo4j.exceptions import (
        AuthError,
        ClientError,
        ConfigurationError,
        DriverError,
        Neo4jError,
        ServiceUnavailable,
    )

    try:
        yield
    except AuthError:
        raise CredentialsError(Messages.BOLT_AUTH.format(uri=uri), uri) from None
    except ServiceUnavailable as e:
        raise StoreError(Messages.BOLT_UNREACHABLE.format(uri=uri, detail=_first_line(e))
                         ) from None
    except ClientError as e:
        if e.code and "DatabaseNotFound" in e.code:
            raise StoreError(Messages.BOLT_NO_DATABASE.format(uri=uri, database=database)
                             ) from None
        if user_query:
            raise QueryError(Messages.CYPHER_ERROR.format(detail=_message(e))) from None
        raise StoreError(Messages.BOLT_FAILED.format(uri=uri, detail=_message(e))) from None
    except ConfigurationError as e:
        raise StoreError(Messages.BOLT_FAILED.format(uri=uri, detail=_first_line(e))) from None
    except (Neo4jError, DriverError) as e:
        raise StoreError(Messages.BOLT_FAILED.format(uri=uri, detail=_message(e))) from None
    except OSError as e:
        raise StoreError(Messages.BOLT_UNREACHABLE.format(uri=uri, detail=_first_line(e))
                         ) from None


def _first_line(e: BaseException) -> str:
    text = " ".join(str(e).split())
    return text[:200] or type(e).__name__


def _message(e: Any) -> str:
    return _first_line(getattr(e, "message", None) or e)


def settings(uri: str | None = None, *, user: str | None = None, password: str | None = None,
             database: str | None = None) -> dict:
    """Connection settings: the arguments given, else ``NEO4J_*`` from the environment.

    Examples
    --------
    >>> settings("bolt://h:7687", user="u", password="p", database="d")["database"]
    'd'
    """
    got = {"uri": uri, "user": user, "password": password, "database": database}
    for key, var in ENV.items():
        if got[key] is None:
            got[key] = os.environ.get(var) or None
    if got["user"] is None:
        got["user"] = "neo4j"
    return got


def connect(uri: str | None = None, *, user: str | None = None, password: str | None = None,
            database: str | None = None) -> BoltGraph:
    """Open a driver to a Bolt server and check that it answers (once, without retries).

    Missing arguments come from ``NEO4J_URI``, ``NEO4J_USER`` (default ``neo4j``),
    ``NEO4J_PASSWORD`` and ``NEO4J_DATABASE`` (default: the server's home database).

    Raises
    ------
    StoreError
        One line for an unreachable server, refused credentials or a missing database.

    Examples
    --------
    >>> with connect("bolt://127.0.0.1:7687", password="pw") as g:  # doctest: +SKIP
    ...     g.run("RETURN 1 AS one")
    [{'one': 1}]
    """
    import neo4j

    s = settings(uri, user=user, password=password, database=database)
    if not s["uri"]:
        raise StoreError(Messages.BOLT_BAD_URI.format(uri=""))
    uri = s["uri"]
    if uri.partition("://")[0].lower() not in BOLT_SCHEMES:
        raise StoreError(Messages.BOLT_BAD_URI.format(uri=uri))
    auth = (s["user"], s["password"] or "")
    try:
        driver = neo4j.GraphDatabase.driver(uri, auth=auth, connection_timeout=10,
                                            max_transaction_retry_time=10)
    except (ValueError, neo4j.exceptions.ConfigurationError):
        raise StoreError(Messages.BOLT_BAD_URI.format(uri=uri)) from None
    graph = BoltGraph(driver, s["database"], uri)
    try:
        with bolt_errors(uri, s["database"]), driver.session(database=s["database"]) as session:
            session.run("RETURN 1 AS ok").consume()
    except BaseException:
        driver.close()
        raise
    return graph


# -- pushing -------------------------------------------------------------------------------

def concept_rows(kg: KnowledgeGraph) -> list[dict]:
    """One row per concept for :data:`MERGE_CONCEPTS` (``None`` values remove a property)."""
    rows = []
    for cid in sorted(kg.concepts):
        c = kg.concepts[cid]
        rows.append({"id": cid, "props": {
            "label": c.label, "type": c.type, "aliases": sorted(set(c.aliases)),
            "hidden": sorted(set(c.hidden_labels)), "origin": c.origin,
            "definition": c.definition, "idf": kg.idf(cid),
            "papers": len(kg.concept_papers.get(cid, ())),
        }})
    return rows


def paper_rows(kg: KnowledgeGraph) -> list[dict]:
    """One row per paper for :data:`MERGE_PAPERS`."""
    return [{"id": pid, "props": {
        "title": p.title, "abstract": p.abstract, "year": p.year, "venue": p.venue,
        "url": p.url, "keywords": sorted(set(p.keywords)),
    }} for pid, p in sorted(kg.papers.items())]


def broader_rows(kg: KnowledgeGraph) -> list[dict]:
    """One row per ``broader`` link between two known concepts."""
    return [{"narrower": cid, "broader": b}
            for cid in sorted(kg.concepts) for b in sorted(set(kg.concepts[cid].broader))
            if b in kg.concepts]


def mention_rows(kg: KnowledgeGraph) -> list[dict]:
    """One row per (paper, concept): count, title mentions, distinct sentences, first position,
    salience and whether the paper is *about* the concept.

    ``first`` is the rank (0, 1 …) of the paper's first mention of the concept
    among all the paper's mentions in text order (title first, then by offset).
    """
    rows: dict[tuple[str, str], dict] = {}
    for pid in sorted(kg.mentions_by_paper):
        for rank, m in enumerate(kg.mentions_by_paper[pid]):  # the model keeps text order
            row = rows.get((pid, m.concept))
            if row is None:
                row = rows[(pid, m.concept)] = {
                    "paper": pid, "concept": m.concept, "count": 0, "title": 0,
                    "evidence": [], "first": rank}
            row["count"] += 1
            row["title"] += m.field == "title"
            if m.sentence not in row["evidence"]:
                row["evidence"].append(m.sentence)
    for key, row in rows.items():
        s = kg.salience[key]
        row["salience"], row["about"] = s.score, s.about
    return [rows[k] for k in sorted(rows)]


def relation_rows(kg: KnowledgeGraph) -> dict[str, list[dict]]:
    """For each relation type, one row per relation edge for :func:`merge_relation`."""
    rows: dict[str, list[dict]] = {t: [] for t in RELATION_TYPES}
    for e in kg.relation_edges.values():
        rows[e.type].append({"head": e.head, "tail": e.tail, "count": e.count,
                             "papers": list(e.evidence), "evidence": list(e.evidence.values())})
    return rows


def _batches(rows: Sequence[dict], size: int) -> Iterator[list[dict]]:
    for i in range(0, len(rows), size):
        yield list(rows[i:i + size])


def _write(tx: Any, statement: str, rows: list[dict]) -> None:
    tx.run(statement, rows=rows).consume()


def ensure_schema(graph: BoltGraph) -> None:
    """Create the uniqueness constraints (``IF NOT EXISTS``: safe to repeat)."""
    for statement in CONSTRAINTS:
        graph.run(statement, write=True)


def clear(graph: BoltGraph, *, batch_size: int = 5000) -> int:
    """Delete every ``Paper`` and ``Concept`` node and their relationships; return how many."""
    deleted = 0
    while True:
        n = graph.run("MATCH (n) WHERE n:Paper OR n:Concept WITH n LIMIT $n "
                      "DETACH DELETE n RETURN count(*) AS n", {"n": batch_size},
                      write=True)[0]["n"]
        deleted += n
        if n < batch_size:
            return deleted


def push(kg: KnowledgeGraph, graph: BoltGraph, *, batch_size: int = 2000,
         progress: bool = False, replace: bool = False) -> dict[str, int]:
    """Write ``kg`` into the Bolt graph: constraints, then batched ``UNWIND … MERGE``.

    Parameters
    ----------
    kg : KnowledgeGraph
        The model (``kg.stores.out.load_model(OUT)``).
    graph : BoltGraph
        Where to write (:func:`connect`).
    batch_size : int
        Rows per transaction.
    progress : bool
        Show a progress bar on stderr.
    replace : bool
        First delete every ``Paper`` and ``Concept`` already there (to drop what a
        previous, different graph left behind).

    Returns
    -------
    dict
        Rows written per kind: ``concepts, papers, broader, mentions, relations``.

    Examples
    --------
    >>> from kg.stores.out import load_model
    >>> with connect("bolt://127.0.0.1:7687") as g:  # doctest: +SKIP
    ...     push(load_model("kg-out"), g)
    {'concepts': 152, 'papers': 19, 'broader': 161, 'mentions': 125, 'relations': 9}
    """
    from tqdm import tqdm

    plan = [
        ("concepts", MERGE_CONCEPTS, concept_rows(kg)),
        ("papers", MERGE_PAPERS, paper_rows(kg)),
        ("broader", MERGE_BROADER, broader_rows(kg)),
        ("mentions", MERGE_MENTIONS, mention_rows(kg)),
    ]
    plan += [("relations", merge_relation(t), rows) for t, rows in relation_rows(kg).items()
             if rows]
    if replace:
        clear(graph)
    ensure_schema(graph)
    total = sum(len(rows) for _, _, rows in plan)
    with tqdm(total=total, unit="row", desc="push", disable=not progress,
              leave=False) as bar, bolt_errors(graph.uri, graph.database), \
            graph.driver.session(database=graph.database) as session:
        for kind, statement, rows in plan:
            bar.set_postfix_str(kind)
            for batch in _batches(rows, batch_size):
                session.execute_write(_write, statement, batch)  # retried if transient
                bar.update(len(batch))
    written = dict.fromkeys(("concepts", "papers", "broader", "mentions", "relations"), 0)
    for kind, _, rows in plan:
        written[kind] += len(rows)
    return written


def counts(graph: BoltGraph) -> dict[str, int]:
    """Nodes per label and relationships per type of the graph's schema.

    Examples
    --------
    >>> with connect("bolt://127.0.0.1:7687") as g:  # doctest: +SKIP
    ...     counts(g)
    {'Paper': 19, 'Concept': 152, 'MENTIONS': 125, 'BROADER': 161, 'USED_FOR': 5, ...}
    """
    out = {}
    for label in ("Paper", "Concept"):
        out[label] = graph.run(f"MATCH (n:{label}) RETURN count(n) AS n")[0]["n"]
    for rel in ("MENTIONS", "BROADER", *RELATIONSHIP_TYPES.values()):
        out[rel] = graph.run(f"MATCH ()-[r:{rel}]->() RETURN count(r) AS n")[0]["n"]
    return out


# -- the graph of a build folder on its local server (``kg serve`` / ``kg cypher``) ----------

@contextlib.contextmanager
def _state_lock(out: Path) -> Iterator[None]:
    """Serialise starting/loading the local server of ``out`` between processes."""
    import fcntl

    folder = state_dir(out)
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "lock", "w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


#: What a server's ``model_sha256`` says once a user may have written to it: the next
#: read-only use loads ``OUT`` again, so the engines answer from ``OUT``.
WRITTEN = "written"


def load_served(server: BoltServer, out: Path, *, progress: bool = False,
                write: bool = False) -> BoltGraph:
    """Connect to ``server`` and make it hold the graph of ``out`` (pushed if it changed).

    The connection is the read-only user's unless ``write``; a writable connection
    marks the server as :data:`WRITTEN`, so the next read-only one pushes ``OUT`` again.
    """
    require_built(out, MODEL)
    sha = file_sha256(out / MODEL)
    if server.model_sha256 != sha and not (write and server.model_sha256 == WRITTEN):
        with connect(server.uri, user=server.user, password=server.password,
                     database=server.database) as admin:
            push(load_model(out), admin, replace=server.model_sha256 is not None,
                 progress=progress)
        server.model_sha256 = sha
        server.out = str(out.resolve())
        save_state(server, out)
    user, password = server.auth if write else server.read_auth
    graph = connect(server.uri, user=user, password=password, database=server.database)
    host = server.uri.rpartition("//")[2].rpartition(":")[0]
    graph.admin = (f"http://{host}:{server.http_port}/api/v1/server", (user, password))
    if write and server.model_sha256 != WRITTEN:
        server.model_sha256 = WRITTEN
        save_state(server, out)
    return graph


def local_graph(out: str | Path, *, start: bool = True, port: int | None = None,
                progress: bool = False, write: bool = False) -> tuple[BoltGraph, BoltServer]:
    """The graph of the build folder ``out`` on its local Bolt server.

    Uses the server remembered for ``out`` (see :mod:`kg.stores.bolt_server`); when there
    is none and ``start``, starts one in the background (it keeps running after
    this process ends: stop it with ``kg serve OUT --stop``). The graph is
    pushed again whenever ``model.json`` changed since it was loaded, or a
    writable connection (``write``) was handed out since; otherwise the
    connection is the server's read-only user.

    Returns
    -------
    (BoltGraph, BoltServer)
        A connection (close it) and the server.

    Raises
    ------
    StoreError
        ``out`` is not built, no server runs and ``start`` is false, or the
        server could not start.

    Examples
    --------
    >>> g, server = local_graph("kg-out")  # doctest: +SKIP
    >>> g.run("MATCH (p:Paper) RETURN count(p) AS n")  # doctest: +SKIP
    [{'n': 19}]
    """
    out = Path(out)
    require_built(out, MODEL)
    with _state_lock(out):
        server = load_state(out)
        if server is not None and server.reader_password is None:
            stop_server(server)  # started by an older kg, without a read-only user
            server = None
        if server is None:
            if not start:
                raise StoreError(Messages.NOT_SERVED.format(out=out))
            server = start_server(state_dir(out) / "server", port=port)
            try:
                server.out = str(out.resolve())
                save_state(server, out)
            except BaseException:  # not remembered, so nobody else could stop it
                stop_server(server)
                raise
        return load_served(server, out, progress=progress, write=write), server


def open_bolt_graph(out: str | Path) -> BoltGraph:
    """The Bolt graph that ``--engine cypher`` asks about the build ``out``.

    The server of ``NEO4J_URI`` (with ``NEO4J_USER``, ``NEO4J_PASSWORD``,
    ``NEO4J_DATABASE``) when it is set — push the build there first with
    ``kg push`` — else the local server of ``out`` (:func:`local_graph`).

    Examples
    --------
    >>> with open_bolt_graph("kg-out") as g:  # doctest: +SKIP
    ...     g.run("MATCH (p:Paper) RETURN count(p) AS n")
    [{'n': 19}]
    """
    if settings()["uri"]:
        return connect()
    return local_graph(out)[0]


