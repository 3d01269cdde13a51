"""``kg export``: the built graph as Turtle, JSON-LD, N-Triples, GraphML, CSV or neo4j-admin CSV.

RDF formats are written from the Oxigraph store, triples sorted so the same
build gives the same bytes; JSON-LD is compact, with the shipped ``@context``
(:mod:`kg.stores.jsonld`). GraphML is the directed networkx view
(:func:`kg.stores.graph.to_networkx` with ``relations=True``: paper and concept nodes
with ``kind``, ``label`` and ``type``; ``mentions``, ``broader`` (narrower → broader),
``shares`` and ``relation`` edges (head → tail, ``type`` ``used-for`` …, ``count``,
``papers``, one ``evidence`` sentence), each edge's GraphML id its kind or relation type;
list attributes are joined with ``"; "`` and missing values left out, as GraphML has no
null or list type). ``neo4j-csv`` is a folder for ``neo4j-admin database import``
(:mod:`kg.stores.neo4j_csv`). CSV is one table with a row per paper–concept link:

``paper_id, paper_title, year, venue, concept_id, concept_label, concept_type,
mentions, evidence``

(``evidence`` is the first sentence of the paper that mentions the concept). It holds
the paper–concept links only: the relations between concepts are in the RDF formats,
GraphML and ``neo4j-csv`` (``relations.csv``).
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import BinaryIO

import pyoxigraph as ox

from kg.core.vocab import PREFIXES
from kg.stores.out import damaged, load_model, open_store

__all__ = ["CSV_COLUMNS", "FOLDER_FORMATS", "FORMATS", "csv_rows", "export", "export_folder",
           "rdf_bytes", "sorted_triples"]

#: formats written to one stream, and those written as a folder of files
FORMATS = ("turtle", "jsonld", "ntriples", "graphml", "csv")
FOLDER_FORMATS = ("neo4j-csv",)
_RDF = {"turtle": ox.RdfFormat.TURTLE, "ntriples": ox.RdfFormat.N_TRIPLES}
CSV_COLUMNS = ["paper_id", "paper_title", "year", "venue", "concept_id", "concept_label",
               "concept_type", "mentions", "evidence"]


def sorted_triples(out: str | Path) -> list[ox.Triple]:
    """Every triple of the store of ``out`` (default graph), in N-Triples order."""
    store = open_store(Path(out))
    try:
        ts = [ox.Triple(q.subject, q.predicate, q.object)
              for q in store.quads_for_pattern(None, None, None, ox.DefaultGraph())]
    except (OSError, RuntimeError) as e:  # a damaged store (RocksDB names the file)
        raise (damaged(e) or e) from None
    ts.sort(key=str)
    return ts


def rdf_bytes(out: str | Path, fmt: str = "ntriples") -> bytes:
    """The graph of ``out`` serialised as ``turtle``, ``jsonld`` or ``ntriples``."""
    if fmt == "jsonld":
        from kg.stores.jsonld import compact_document

        doc = compact_document(sorted_triples(out))
        return (json.dumps(doc, ensure_ascii=False, indent=1) + "\n").encode("utf-8")
    prefixes = None if fmt == "ntriples" else PREFIXES
    return ox.serialize(sorted_triples(out), format=_RDF[fmt], prefixes=prefixes)


def _graphml(out: str | Path, stream: BinaryIO) -> None:
    # networkx (~0.2 s) only for GraphML: the RDF and CSV exports do not need it
    import networkx as nx

    from kg.stores.graph import to_networkx

    g = to_networkx(load_model(Path(out)), relations=True)
    for _, attrs in list(g.nodes(data=True)) + [(None, d) for *_, d in g.edges(data=True)]:
        for k in [k for k, v in attrs.items() if v is None]:
            del attrs[k]
        for k, v in attrs.items():
            if isinstance(v, (list, tuple, set)):
                attrs[k] = "; ".join(str(x) for x in v)
    nx.write_graphml(g, stream, encoding="utf-8")


def csv_rows(out: str | Path) -> list[dict]:
    """The rows of the CSV export (one per paper–concept link, by paper then concept id)."""
    kg = load_model(Path(out))
    first = kg.first_evidence
    rows = []
    for pid in sorted(kg.paper_concepts):
        p = kg.papers[pid]
        for cid, n in sorted(kg.paper_concepts[pid].items()):
            c = kg.concepts[cid]
            rows.append({"paper_id": pid, "paper_title": p.title, "year": p.year,
                         "venue": p.venue, "concept_id": cid, "concept_label": c.label,
                         "concept_type": c.type, "mentions": n,
                         "evidence": first[(pid, cid)]})
    return rows


def export(out: str | Path, fmt: str, stream: BinaryIO) -> None:
    """Write the graph of the built folder ``out`` to the binary ``stream`` in ``fmt``.

    Parameters
    ----------
    out : path
        A folder written by ``kg build``.
    fmt : {"turtle", "jsonld", "ntriples", "graphml", "csv"}
    stream : binary file

    Examples
    --------
    >>> import io
    >>> buf = io.BytesIO()
    >>> export("kg-out", "ntriples", buf)  # doctest: +SKIP
    >>> buf.getvalue().count(b"\\n") > 1000  # doctest: +SKIP
    True
    """
    out = Path(out)
    if fmt in _RDF or fmt == "jsonld":
        stream.write(rdf_bytes(out, fmt))
    elif fmt == "graphml":
        _graphml(out, stream)
    elif fmt == "csv":
        buf = io.StringIO()
        w = csv.DictWriter(buf, CSV_COLUMNS, lineterminator="\n")
        w.writeheader()
        w.writerows(csv_rows(out))
        stream.write(buf.getvalue().encode("utf-8"))
    else:
        raise ValueError(f"unknown export format {fmt!r}; choose from {', '.join(FORMATS)}")


def export_folder(out: str | Path, fmt: str, folder: str | Path) -> list[Path]:
    """Write the graph of ``out`` as the files of ``fmt`` (``neo4j-csv``) into ``folder``.

    Returns the files written.
    """
    if fmt != "neo4j-csv":
        raise ValueError(f"unknown folder format {fmt!r}; choose from "
                         f"{', '.join(FOLDER_FORMATS)}")
    from kg.stores.neo4j_csv import write_neo4j_csv

    return write_neo4j_csv(load_model(out), folder)
