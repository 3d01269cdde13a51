"""Raw SPARQL queries on a built store (``kg sparql``), formatted as table, JSON or CSV.

SELECT and ASK results come as a table, `SPARQL 1.1 results JSON
<https://www.w3.org/TR/sparql11-results-json/>`_ or SPARQL results CSV;
CONSTRUCT and DESCRIBE results as Turtle (table), JSON-LD (json) or a
``subject,predicate,object`` CSV. The project prefixes are predefined (they
are passed to the parser, so error positions refer to the user's own text).
"""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import pyoxigraph as ox

from kg.core.errors import Messages, QueryError
from kg.core.output import emit
from kg.core.vocab import PREFIXES

__all__ = ["compact", "query", "run_query"]

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


def query(store: ox.Store, text: str):
    """Run ``text`` on ``store`` with the project prefixes; errors become one line.

    Raises
    ------
    QueryError
        For a syntax error (with its line and column) or a failed evaluation.
    """
    try:
        return store.query(text, prefixes=PREFIXES)
    except SyntaxError as e:
        raise QueryError(Messages.SPARQL_SYNTAX.format(detail=_syntax_detail(str(e), text))) \
            from None
    except (OSError, ValueError, RuntimeError) as e:
        detail = " ".join(str(e).split())
        raise QueryError(Messages.SPARQL_FAILED.format(detail=detail)) from None


def _results(res, fmt: str) -> str:
    if isinstance(res, ox.QueryBoolean):
        if fmt == "json":
            return res.serialize(format=ox.QueryResultsFormat.JSON).decode("utf-8") + "\n"
        if fmt == "csv":
            return f"boolean\n{str(bool(res)).lower()}\n"
        return str(bool(res)).lower() + "\n"
    if isinstance(res, ox.QuerySolutions):
        if fmt in ("json", "csv"):
            rf = ox.QueryResultsFormat.JSON if fmt == "json" else ox.QueryResultsFormat.CSV
            text = res.serialize(format=rf).decode("utf-8")
            return text if text.endswith("\n") else text + "\n"
        names = [v.value for v in res.variables]
        rows = [{n: compact(row[n]) for n in names} for row in res]
        buf = io.StringIO()
        emit(rows, names, "table", buf, max_width=80)
        return buf.getvalue()
    triples = sorted(res, key=str)  # CONSTRUCT / DESCRIBE, in a stable order
    if fmt == "csv":
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(["subject", "predicate", "object"])
        for t in triples:
            w.writerow([t.subject.value if hasattr(t.subject, "value") else str(t.subject),
                        t.predicate.value, compact(t.object) if isinstance(t.object, ox.Literal)
                        else getattr(t.object, "value", str(t.object))])
        return buf.getvalue()
    rdf_format = ox.RdfFormat.JSON_LD if fmt == "json" else ox.RdfFormat.TURTLE
    data = ox.serialize(triples, format=rdf_format, prefixes=PREFIXES)
    text = data.decode("utf-8")
    return text if text.endswith("\n") else text + "\n"


def run_query(out: str | Path, text: str, fmt: str = "table") -> str:
    """Run the SPARQL ``text`` on the store of the built folder ``out``, formatted as ``fmt``.

    Examples
    --------
    >>> print(run_query("kg-out", "ASK { ?c skos:prefLabel 'MinHash'@en }"))  # doctest: +SKIP
    true
    """
    from kg.stores.out import open_store

    return _results(query(open_store(Path(out)), text), fmt)
