"""The model on disk as a build's extraction process hands it over, and the writers that
stream it from there.

A build extracts in a child process (:func:`kg.core.processes.run_apart`), which writes the
model to a spill file with :func:`dump_spill`: the corpus-level tables the writers need
(vocabulary-sized: the concepts, each concept's document frequency, the totals, the
extractors' names) and then the model's rows in pickled pieces, section by section. The
build's own process opens it as a :class:`Spill` and writes ``graph.ttl``, ``model.json``
and ``model.sqlite`` by reading the sections as streams (several at once, each at its own
offset), a few papers at a time (:meth:`Spill.parts`): it never holds the whole model.
The outputs are byte-identical to those written from the model in memory.

Sections, in the order written: ``concepts``; ``papers`` (the model's order); ``by_id``
(the papers in id order, unless that is the model's order); ``mentions`` and ``relations``
(the model's order: grouped by paper, papers in id order); ``salience`` (in (paper,
concept) order); ``edges`` (the relation edges, in key order). The last record says where
each section starts, and the file's last 8 bytes where that record is.
"""

from __future__ import annotations

import io
import os
import pickle
import struct
from collections.abc import Iterable, Iterator
from dataclasses import fields as dataclass_fields
from pathlib import Path
from typing import BinaryIO

from kg.core.model import (
    Concept,
    KnowledgeGraph,
    Mention,
    Paper,
    Relation,
    RelationEdge,
    Salience,
    dump_rows,
    dump_section,
    load_rows,
    write_json_sections,
)
from kg.stores.model_index import is_whole, write_model_index_parts
from kg.stores.rdf import Triple, corpus_triples_of, extractor_names

__all__ = ["PAPERS_PER_PART", "Spill", "dump_spill", "load_spill", "streams"]

#: Papers per part of :meth:`Spill.parts` (their mentions, relations and saliences with them).
PAPERS_PER_PART = 256
_MAGIC = "kg-spill-1"
_TRAILER = struct.Struct("<Q")


def streams(kg: KnowledgeGraph) -> bool:
    """Whether ``kg`` can be streamed from a spill: its mentions and relations grouped by
    paper, papers in id order, each in a field of the model (what a build makes; the
    ``whole`` condition of :mod:`kg.stores.model_index`)."""
    return is_whole(kg)


def dump_spill(kg: KnowledgeGraph, file: BinaryIO, *, links: int) -> None:
    """Write ``kg`` to ``file`` for :class:`Spill` (``links``: its paper–paper link count,
    :func:`kg.stores.graph.paper_link_count`); a model that does not :func:`stream` is
    written with :func:`~kg.core.model.dump_rows` (:func:`load_spill` reads it back whole).
    """
    if not streams(kg):
        dump_rows(kg, file)
        return
    edges = kg.relation_edges
    meta = {
        "papers": len(kg.papers), "concepts": len(kg.concepts), "mentions": len(kg.mentions),
        "paper_concept_links": kg.n_salience(), "paper_paper_links": links,
        "relations": len(edges),
        "df": {c: len(ps) for c, ps in kg.concept_papers.items()},
        "extractors": extractor_names(kg),
    }
    pickle.dump((_MAGIC, meta), file, protocol=pickle.HIGHEST_PROTOCOL)
    starts: dict[str, int] = {}
    ids = list(kg.papers)
    by_id = sorted(ids)
    sections: list[tuple[str, type, Iterable]] = [
        ("concepts", Concept, kg.concepts.values()), ("papers", Paper, kg.papers.values()),
        ("by_id", Paper, [] if by_id == ids else (kg.papers[p] for p in by_id)),
        ("mentions", Mention, kg.mentions), ("relations", Relation, kg.relations),
        # a paper at a time (not every pair's at once) unless the model has them already
        ("salience", Salience, kg.salience_rows()),
        ("edges", RelationEdge, edges.values()),
    ]
    del ids, by_id
    for name, cls, items in sections:
        starts[name] = file.tell()
        dump_section(file, name, cls, items)
    if starts["by_id"] == starts["mentions"]:  # the model's order is id order
        starts["by_id"] = starts["papers"]
    end = file.tell()
    pickle.dump(("end", starts), file, protocol=pickle.HIGHEST_PROTOCOL)
    file.write(_TRAILER.pack(end))


def load_spill(file: BinaryIO) -> Spill | KnowledgeGraph:
    """What :func:`dump_spill` wrote: a :class:`Spill` on the same file (which may then be
    removed: it is read through its own descriptor), or the whole model."""
    first = pickle.load(file)
    if first[0] != _MAGIC:
        file.seek(0)
        return load_rows(file)
    return Spill(os.dup(file.fileno()), first[1])


class _At(io.RawIOBase):
    """A reader of a file descriptor from its own offset (``os.pread``): several read one
    file at once, each where it is."""

    def __init__(self, fd: int, offset: int) -> None:
        self.fd, self.offset = fd, offset

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:  # type: ignore[no-untyped-def]
        data = os.pread(self.fd, len(buffer), self.offset)
        buffer[:len(data)] = data
        self.offset += len(data)
        return len(data)


class Spill:
    """A model on disk (:func:`dump_spill`), read as streams of rows.

    ``meta`` holds the totals, each concept's document frequency (``df``) and the
    extractors' names; :attr:`concepts` is read once (vocabulary-sized).
    """

    def __init__(self, fd: int, meta: dict) -> None:
        self.fd = fd
        self.meta = meta
        size = os.fstat(fd).st_size
        (end,) = _TRAILER.unpack(os.pread(fd, _TRAILER.size, size - _TRAILER.size))
        _, self.starts = pickle.load(self._reader(end))
        self.concepts: dict[str, Concept] = {row[0]: Concept(*row)
                                             for row in self.rows("concepts")}

    def _reader(self, offset: int) -> BinaryIO:
        return io.BufferedReader(_At(self.fd, offset), 1 << 16)  # type: ignore[return-value]

    def close(self) -> None:
        """Close the file (it goes once nothing else has it open)."""
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def __del__(self) -> None:
        self.close()

    def rows(self, section: str) -> Iterator[tuple]:
        """The rows of ``section`` (tuples of the dataclass's field values), in order."""
        f = self._reader(self.starts[section])
        if section == "by_id" and self.starts["by_id"] == self.starts["papers"]:
            section = "papers"
        while True:
            name, piece = pickle.load(f)
            if name != section:
                return
            yield from piece

    def papers(self) -> Iterator[Paper]:
        """The papers, in the model's order."""
        return (Paper(*row) for row in self.rows("papers"))

    def edges(self) -> Iterator[RelationEdge]:
        """The relation edges, in key order."""
        return (RelationEdge(*row) for row in self.rows("edges"))

    def parts(self, size: int = PAPERS_PER_PART) -> Iterator[KnowledgeGraph]:
        """The model, ``size`` papers at a time in id order: each part holds those papers,
        their mentions, relations and saliences (preset), and every concept."""
        mentions, relations, salience = (_Ahead(self.rows(s))
                                         for s in ("mentions", "relations", "salience"))
        papers = self.rows("by_id")
        while True:
            rows = [row for _, row in zip(range(size), papers, strict=False)]
            if not rows:
                return
            last = rows[-1][0]
            kg = KnowledgeGraph(papers={row[0]: Paper(*row) for row in rows},
                                concepts=self.concepts,
                                mentions=[Mention(*row) for row in mentions.upto(last)],
                                relations=[Relation(*row) for row in relations.upto(last)])
            kg.__dict__["salience"] = {(row[0], row[1]): Salience(*row)
                                       for row in salience.upto(last)}
            yield kg

    def corpus_triples(self) -> Iterator[Triple]:
        """The corpus block's triples (:func:`kg.stores.rdf.corpus_triples`), streamed."""
        m = self.meta
        return corpus_triples_of(self.concepts, m["df"], m["papers"], m["mentions"],
                                 m["paper_concept_links"], self.edges(), m["extractors"],
                                 (Salience(*row) for row in self.rows("salience")))

    def write_json(self, path: Path) -> None:
        """``model.json`` (:meth:`kg.core.model.KnowledgeGraph.save`), streamed."""
        def plain(section: str, cls: type) -> Iterator[dict]:
            names = [f.name for f in dataclass_fields(cls)]
            return (dict(zip(names, row, strict=True)) for row in self.rows(section))

        write_json_sections(path, {
            "papers": plain("papers", Paper), "concepts": plain("concepts", Concept),
            "mentions": plain("mentions", Mention), "relations": plain("relations", Relation),
            "salience": plain("salience", Salience)})

    def write_index(self, path: Path) -> None:
        """``model.sqlite`` (:func:`kg.stores.model_index.write_model_index`), streamed."""
        write_model_index_parts(path, self.papers(), self.concepts, self.parts(), self.edges(),
                                n_papers=self.meta["papers"], n_mentions=self.meta["mentions"])


class _Ahead:
    """Rows sorted by their first field, taken a paper range at a time."""

    def __init__(self, rows: Iterator[tuple]) -> None:
        self._rows = rows
        self._next: tuple | None = next(rows, None)

    def upto(self, last: str) -> list[tuple]:
        """The rows whose first field is ``last`` or before it."""
        out = []
        while self._next is not None and self._next[0] <= last:
            out.append(self._next)
            self._next = next(self._rows, None)
        return out
