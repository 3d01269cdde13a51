"""``graph.ttl`` written block by block, so that the next build can reuse unchanged blocks.

The file is the prefix header, the corpus block (concepts, relations between them and
totals: they change whenever any paper does) and one block per paper (the paper, its
mentions, its concept links and its relation statements: they change only with the paper,
its mentions and its relations). ``graph-index.json``
records where each block lies and a key of what it was made from
(:func:`paper_key`). A build into an existing ``OUT`` copies the bytes of every paper
block whose key is unchanged instead of generating them again, and
:func:`kg.stores.out.write_rdf` updates a copy of the previous store by the difference
instead of loading every triple. The bytes are the same as a build from scratch.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, fields
from pathlib import Path

import pyoxigraph as ox

from kg.core.errors import Messages
from kg.core.layout import INDEX, STORE_FILES, TURTLE
from kg.core.model import KnowledgeGraph
from kg.stores.rdf import Triple, corpus_triples, paper_block, turtle_header

__all__ = [
    "Block", "FORMAT", "TurtleIndex", "Written", "header", "loaded_size", "paper_key",
    "parse_block", "remember_store", "store_files", "store_size", "store_unchanged", "turtle",
    "turtle_pieces", "write_blocks", "write_turtle",
]

#: Bump when the RDF form of a paper block or the index changes: older indexes are ignored.
FORMAT = 3


@dataclass(frozen=True)
class Block:
    """Where a block lies in ``graph.ttl``, what it was made from, how many triples it has,
    and a hash of its bytes (checked before they are reused)."""

    start: int
    length: int
    key: str
    triples: int
    digest: str


@dataclass
class TurtleIndex:
    """The blocks of one ``graph.ttl``."""

    corpus: Block
    papers: dict[str, Block] = field(default_factory=dict)

    def size(self) -> int:
        """The file size these blocks add up to."""
        return len(header()) + self.corpus.length + sum(b.length for b in self.papers.values())

    def to_json(self) -> dict:
        return {"format": FORMAT, "corpus": list(vars(self.corpus).values()),
                "papers": {p: list(vars(b).values()) for p, b in self.papers.items()}}

    @classmethod
    def read(cls, out: Path) -> TurtleIndex | None:
        """The index of ``out/graph.ttl``, or ``None`` if it is missing, stale or unreadable.

        Valid JSON is not enough: the blocks must tile ``graph.ttl`` after its header and
        each block's bytes must have the hash it records. Otherwise (an edited or damaged
        file or index) a note goes to stderr and the RDF is written from scratch.
        """
        try:
            data = json.loads((out / INDEX).read_text(encoding="utf-8"))
            if data.get("format") != FORMAT:
                return None
            index = cls(Block(*data["corpus"]),
                        {p: Block(*b) for p, b in data["papers"].items()})
            matches = index.matches(out / TURTLE)
        except (OSError, ValueError, TypeError, KeyError, AttributeError):
            return None
        if not matches:
            print(f"kg: note: {Messages.CACHE_MISMATCH.format(path=out / INDEX)}",
                  file=sys.stderr, flush=True)
            return None
        return index

    def matches(self, path: Path) -> bool:
        """Whether ``path`` is the header then these blocks, each with its recorded hash."""
        if path.stat().st_size != self.size():
            return False
        with open(path, "rb") as f:
            if f.read(len(header())) != header():
                return False
            for block in sorted([self.corpus, *self.papers.values()], key=lambda b: b.start):
                if block.start != f.tell() or _digest(f.read(block.length)) != block.digest:
                    return False
        return True


def _digest(data: bytes) -> str:
    return hashlib.sha1(data).hexdigest()


def paper_key(kg: KnowledgeGraph, pid: str) -> str:
    """A hash of everything the paper's block is made from: the paper, its mentions and the
    relation statements that are graph edges."""
    p = kg.papers[pid]
    mentions = [(m.concept, m.field, m.start, m.end, m.text, m.sentence, m.extractor, m.score)
                for m in kg.mentions_by_paper.get(pid, ())]
    relations = [tuple(getattr(r, f.name) for f in fields(r))  # slots: no vars()
                 for r in kg.relations_by_paper.get(pid, ())]
    made_of = repr((FORMAT, pid, p.title, p.abstract, sorted(set(p.keywords)), p.year, p.venue,
                    p.url, mentions, relations))
    return hashlib.sha1(made_of.encode("utf-8", "surrogatepass")).hexdigest()


def header() -> bytes:
    """The ``@prefix`` lines that start ``graph.ttl`` (what Oxigraph writes for PREFIXES)."""
    return turtle_header()


def turtle(triples: Iterable[Triple]) -> bytes:
    """``triples`` in Turtle without the header (so blocks can be concatenated).

    Consecutive triples of one subject share it (``;``), of one subject and predicate share
    both (``,``): the bytes Oxigraph's Turtle serializer writes for the same triples.

    >>> turtle([("kgc:a", "a", "skos:Concept"), ("kgc:a", "skos:altLabel", '"x"'),
    ...         ("kgc:a", "skos:altLabel", '"y"'), ("kgc:b", "a", "skos:Concept")])
    b'kgc:a a skos:Concept ;\\n\\tskos:altLabel "x" , "y" .\\nkgc:b a skos:Concept .\\n'
    """
    return b"".join(turtle_pieces(triples))


def turtle_pieces(triples: Iterable[Triple], size: int = 1 << 16) -> Iterator[bytes]:
    """:func:`turtle` of ``triples`` in pieces of whole statements (about ``size`` terms
    each): their bytes joined are ``turtle(triples)``, and each piece is valid Turtle after
    the header (a store may load the pieces apart).

    >>> t = [("kgc:a", "a", "skos:Concept"), ("kgc:a", "skos:altLabel", '"x"'),
    ...      ("kgc:b", "a", "skos:Concept")]
    >>> list(turtle_pieces(t, size=1)) == [turtle(t[:2]), turtle(t[2:])]
    True
    """
    parts: list[str] = []
    add = parts.append
    subject = predicate = None
    for s, p, o in triples:
        if s == subject:
            if p == predicate:
                add(" , ")
            else:
                add(" ;\n\t")
                add(p)
                add(" ")
                predicate = p
        else:
            if subject is not None:
                add(" .\n")
                if len(parts) >= size:
                    yield "".join(parts).encode()
                    parts.clear()
            add(s)
            add(" ")
            add(p)
            add(" ")
            subject, predicate = s, p
        add(o)
    if subject is not None:
        add(" .\n")
    if parts:
        yield "".join(parts).encode()


def parse_block(block: bytes) -> list[ox.Triple]:
    """The triples of a block read back (with the header it needs).

    As :class:`ox.Triple`, which is what the blocks are made of: the parser gives quads
    of the default graph, and a quad never equals the triple it holds.

    Examples
    --------
    >>> a, b, c = (ox.NamedNode(f"http://{x}") for x in "abc")
    >>> parse_block(b"<http://a> <http://b> <http://c> .") == [ox.Triple(a, b, c)]
    True
    """
    return [ox.Triple(q.subject, q.predicate, q.object)
            for q in ox.parse(header() + block, format=ox.RdfFormat.TURTLE)]


@dataclass
class Written:
    """What :func:`write_turtle` wrote."""

    index: TurtleIndex
    triples: int
    #: The corpus block (Turtle without the header; :func:`parse_block` reads it).
    corpus: bytes
    #: With a previous build: the blocks generated for new or changed papers (empty
    #: otherwise: a full build does not keep them).
    added: list[bytes]
    #: Papers of the previous build whose block was not kept (changed or gone).
    dropped: list[str]
    previous: TurtleIndex | None


def write_turtle(kg: KnowledgeGraph, path: Path, *, previous: Path | None = None,
                 also: Callable[[bytes], object] | None = None,
                 each: Callable[[], object] | None = None) -> Written:
    """Write ``path`` (``graph.ttl``) and its index beside it; reuse ``previous``'s blocks.

    ``previous`` is an earlier ``OUT``; blocks of papers whose :func:`paper_key` is
    unchanged are copied from its ``graph.ttl``. ``also`` receives the file's bytes too, as
    they are written (a store loading them meanwhile); ``each`` is called after each
    paper's block (a progress bar).
    """
    return write_blocks(corpus_triples(kg), [kg], path, previous=previous, also=also,
                        each=each)


def write_blocks(corpus: Iterable[Triple], parts: Iterable[KnowledgeGraph], path: Path, *,
                 previous: Path | None = None, also: Callable[[bytes], object] | None = None,
                 each: Callable[[], object] | None = None) -> Written:
    """:func:`write_turtle` of the corpus triples ``corpus`` and the papers of ``parts``.

    ``parts`` are models of a few papers each (with every concept), their papers in id order
    from one part to the next: a paper's block depends on the paper, its mentions and its
    relations only. The corpus block is written as it is made, never held whole (unless
    ``previous`` needs it to update a copy of its store).
    """
    old = TurtleIndex.read(previous) if previous is not None else None
    # kept only to update a copy of the previous store
    added: list[bytes] = []
    kept: list[bytes] = []
    with open(path, "wb") as f, \
            open(previous / TURTLE, "rb") if old else contextlib.nullcontext() as src:

        def write(data: bytes) -> None:
            f.write(data)
            if also is not None:
                also(data)

        write(header())
        start, made, digest = f.tell(), [0], hashlib.sha1()
        for data in turtle_pieces(_counted(corpus, made)):
            digest.update(data)
            write(data)
            if old:
                kept.append(data)
        index = TurtleIndex(Block(start, f.tell() - start, "", made[0], digest.hexdigest()))
        for kg in parts:
            for pid in sorted(kg.papers):
                key = paper_key(kg, pid)
                was = old.papers.get(pid) if old else None
                if was is not None and was.key == key:
                    src.seek(was.start)
                    data, n = src.read(was.length), was.triples
                else:
                    block = list(paper_block(kg, pid))
                    data, n = turtle(block), len(block)
                    if old:
                        added.append(data)
                index.papers[pid] = Block(f.tell(), len(data), key, n, _digest(data))
                write(data)
                if each is not None:
                    each()
    (path.parent / INDEX).write_text(json.dumps(index.to_json(), separators=(",", ":")),
                                     encoding="utf-8")
    (path.parent / STORE_FILES).unlink(missing_ok=True)  # until the store is written
    dropped = sorted(p for p, b in old.papers.items()
                     if p not in index.papers or index.papers[p].key != b.key) if old else []
    total = index.corpus.triples + sum(b.triples for b in index.papers.values())
    # the corpus block only to update a previous store
    return Written(index, total, b"".join(kept), added, dropped, old)


def _counted(triples: Iterable[Triple], count: list[int]) -> Iterator[Triple]:
    """``triples``, counted into ``count[0]`` as they go."""
    for t in triples:
        count[0] += 1
        yield t


def store_files(store: Path) -> list[list]:
    """Each file of an on-disk store with its size (opening it read-only changes none)."""
    return sorted([f.name, f.stat().st_size] for f in store.iterdir() if f.is_file())


def remember_store(out: Path, store: Path, loaded: tuple[int, int]) -> None:
    """Record the files of ``store`` as this build left them (:data:`STORE_FILES`).

    ``loaded`` is ``(triples, bytes)`` of the last store loaded from scratch that this one
    descends from: what a fresh store of this graph would weigh (:func:`loaded_size`).
    """
    (out / STORE_FILES).write_text(json.dumps({"files": store_files(store),
                                               "loaded": list(loaded)}), encoding="utf-8")


def store_unchanged(out: Path, store: Path) -> bool:
    """Whether ``store`` still has the files its build recorded (nothing wrote to it since)."""
    try:
        recorded = json.loads((out / STORE_FILES).read_text(encoding="utf-8"))
        return isinstance(recorded, dict) and recorded.get("files") == store_files(store)
    except (OSError, ValueError):
        return False


def loaded_size(out: Path) -> tuple[int, int] | None:
    """``(triples, bytes)`` of the last store loaded from scratch, as :func:`remember_store`
    recorded it, or ``None``."""
    try:
        triples, size = json.loads((out / STORE_FILES).read_text(encoding="utf-8"))["loaded"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return (triples, size) if isinstance(triples, int) and isinstance(size, int) else None


def store_size(store: Path) -> int:
    """The bytes of an on-disk store's files."""
    return sum(size for _, size in store_files(store))
