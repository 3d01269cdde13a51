"""Raw SPARQL queries on a built store (``kg sparql``), formatted as table, JSON or CSV.

SELECT and ASK results come as a table, `SPARQL 1.1 results JSON
<https://www.w3.org/TR/sparql11-results-json/>`_ or SPARQL results CSV;
CONSTRUCT and DESCRIBE results as Turtle (table), JSON-LD (json) or a
``subject,predicate,object`` CSV. The project prefixes are predefined (they
are passed to the parser, so error positions refer to the user's own text).
"""

from __future__ import annotations

import contextlib
import csv
import io
import re
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

import pyoxigraph as ox

from kg.core.errors import Messages, QueryError
from kg.core.output import emit, one_line_text
from kg.core.vocab import PREFIXES
from kg.stores.out import damaged
from queries.guards import sparql_service

__all__ = ["MAX_TRIPLES", "compact", "query", "run_query", "write_query"]

#: CONSTRUCT and DESCRIBE results are sorted, so held in memory: at most this many triples.
MAX_TRIPLES = 1_000_000

_LOCAL = re.compile(r"^[A-Za-z_][A-Za-z0-9_.-]*$")


def compact(term: object) -> str:
    """A short form of a result term for tables: ``kgc:minhash``, a literal's text.

    Examples
    --------
    >>> import pyoxigraph as ox
    >>> compact(ox.NamedNode("https://w3id.org/kg-abstracts/concept/minhash"))
    'kgc:minhash'
    >>> compact(ox.Literal("MinHash", language="en"))
    'MinHash'
    """
    if term is None:
        return ""
    if isinstance(term, ox.NamedNode):
        for prefix, ns in PREFIXES.items():
            local = term.value[len(ns):]
            if term.value.startswith(ns) and (not local or _LOCAL.match(local)):
                return f"{prefix}:{local}"
        return f"<{term.value}>"
    if isinstance(term, ox.Literal):
        return term.value
    return str(term)


def _syntax_detail(message: str, text: str) -> str:
    """Oxigraph's parse error in one short line: position, then what went wrong."""
    message = " ".join(message.split())
    m = re.match(r"error at (\d+):(\d+): (.*)", message)
    if not m:
        return message[:200]
    line, col, rest = int(m.group(1)), int(m.group(2)), m.group(3)
    if "Prefix not found" in rest:
        lines = text.splitlines() or [""]
        before = lines[min(line, len(lines)) - 1][: max(col - 1, 0)]
        found = re.findall(r"([A-Za-z][\w.-]*)?:[\w.-]*$", before)
        name = found[-1] if found else ""
        return f"error at {line}:{col}: unknown prefix '{name}:'"
    if len(rest) > 120:
        rest = rest[:117].rstrip() + "…"
    return f"error at {line}:{col}: {rest}"


def query(store: ox.Store, text: str, *, allow_service: bool = False):
    """Run ``text`` on ``store`` with the project prefixes; errors become one line.

    A ``SERVICE`` clause (a request to another server) is refused unless
    ``allow_service``.

    Raises
    ------
    QueryError
        For a ``SERVICE`` clause, a syntax error (with its line and column) or a
        failed evaluation.
    """
    if not allow_service and sparql_service(text):
        raise QueryError(Messages.SPARQL_SERVICE)
    with _failures(text):
        return store.query(text, prefixes=PREFIXES)


@contextlib.contextmanager
def _failures(text: str) -> Iterator[None]:
    """Oxigraph's errors (also those raised while results are read) as one line."""
    try:
        yield
    except SyntaxError as e:
        raise QueryError(Messages.SPARQL_SYNTAX.format(detail=_syntax_detail(str(e), text))) \
            from None
    except (OSError, ValueError, RuntimeError) as e:
        broken = damaged(e)
        if broken is not None:
            raise broken from None
        detail = " ".join(str(e).split())
        raise QueryError(Messages.SPARQL_FAILED.format(detail=detail[:300])) from None


def _write_results(res, fmt: str, out: BinaryIO, limit: int | None,
                   width: int | None = None) -> int | None:
    """Write ``res`` to ``out``; return how many rows the table left out (``None``: none)."""
    if isinstance(res, ox.QueryBoolean):
        if fmt == "json":
            out.write(res.serialize(format=ox.QueryResultsFormat.JSON) + b"\n")
        else:
            out.write((("boolean\n" if fmt == "csv" else "")
                       + str(bool(res)).lower() + "\n").encode())
        return None
    if isinstance(res, ox.QuerySolutions):
        if fmt in ("json", "csv"):  # streamed: memory stays flat whatever the size
            rf = ox.QueryResultsFormat.JSON if fmt == "json" else ox.QueryResultsFormat.CSV
            res.serialize(out, format=rf)
            out.write(b"\n" if fmt == "json" else b"")
            return None
        names = [v.value for v in res.variables]
        rows, more = [], 0
        for row in res:
            if limit is not None and len(rows) >= limit:
                more += 1
                continue  # counted, not kept
            rows.append({n: compact(row[n]) for n in names})
        buf = io.StringIO()
        emit(rows, names, "table", buf, width=width)
        out.write(buf.getvalue().encode("utf-8"))
        return more or None
    triples = []  # CONSTRUCT / DESCRIBE: sorted (stable output), so held; bounded
    for t in res:
        if len(triples) >= MAX_TRIPLES:
            raise QueryError(Messages.TOO_MANY_TRIPLES.format(n=MAX_TRIPLES))
        triples.append(t)
    triples.sort(key=str)
    if fmt == "csv":
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(["subject", "predicate", "object"])
        for t in triples:
            w.writerow([t.subject.value if hasattr(t.subject, "value") else str(t.subject),
                        t.predicate.value, compact(t.object) if isinstance(t.object, ox.Literal)
                        else getattr(t.object, "value", str(t.object))])
        out.write(buf.getvalue().encode("utf-8"))
        return None
    rdf_format = ox.RdfFormat.JSON_LD if fmt == "json" else ox.RdfFormat.TURTLE
    data = ox.serialize(triples, format=rdf_format, prefixes=PREFIXES)
    if fmt == "table":
        data = one_line_text(data.decode("utf-8")).encode("utf-8")
    out.write(data if data.endswith(b"\n") else data + b"\n")
    return None


def write_query(out: str | Path, text: str, fmt: str, stream: BinaryIO, *,
                allow_service: bool = False, limit: int | None = None,
                width: int | None = None) -> int | None:
    """Run the SPARQL ``text`` on the store of the built folder ``out``; write it as ``fmt``.

    SELECT results in JSON or CSV are streamed; a table shows at most ``limit``
    rows and fits into ``width`` columns (``None``: as wide as its cells).
    Returns how many rows the table left out (``None`` when none).

    Examples
    --------
    >>> import io
    >>> buf = io.BytesIO()
    >>> ask = "ASK { ?c skos:prefLabel 'MinHash'@en }"
    >>> write_query("kg-out", ask, "table", buf)  # doctest: +SKIP
    >>> buf.getvalue()  # doctest: +SKIP
    b'true\\n'
    """
    from kg.stores.out import open_store

    store = open_store(Path(out))
    with _failures(text):
        return _write_results(query(store, text, allow_service=allow_service), fmt, stream,
                              limit, width)


def run_query(out: str | Path, text: str, fmt: str = "table", *,
              allow_service: bool = False) -> str:
    """Run the SPARQL ``text`` on the store of the built folder ``out``, formatted as ``fmt``.

    Examples
    --------
    >>> print(run_query("kg-out", "ASK { ?c skos:prefLabel 'MinHash'@en }"))  # doctest: +SKIP
    true
    """
    buf = io.BytesIO()
    write_query(out, text, fmt, buf, allow_service=allow_service)
    return buf.getvalue().decode("utf-8")
