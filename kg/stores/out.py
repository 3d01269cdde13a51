"""Writing and opening a built graph folder (``OUT``; its files: :mod:`kg.core.layout`)."""

from __future__ import annotations

import contextlib
import json
import os
import queue
import shutil
import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, BinaryIO

import pyoxigraph as ox

from kg.core.collect import return_free_pages
from kg.core.errors import Messages, StoreError
from kg.core.layout import MANIFEST, MODEL, MODEL_DB, STORE, TURTLE
from kg.core.model import KnowledgeGraph
from kg.core.vocab import PREFIXES
from kg.stores.model_index import index_damaged, open_model_index, read_model
from kg.stores.rdf_file import (
    TurtleIndex,
    Written,
    loaded_size,
    parse_block,
    remember_store,
    store_size,
    store_unchanged,
    write_blocks,
)
from kg.stores.rdf_file import write_turtle as write_model_turtle
from kg.stores.spill import Spill

if TYPE_CHECKING:  # rdflib takes ~0.1 s to import; only open_rdflib_graph needs it
    import rdflib

__all__ = [
    "BULK_LOAD_BYTES", "BULK_LOAD_TRIPLES", "LENIENT", "STORE_SLACK", "bulk_load_pieces",
    "damaged", "is_read_only", "load_model", "loads_in_background", "open_rdflib_graph",
    "open_store", "require_built", "turtle_triples", "write_manifest", "write_rdf",
]

_READ_ONLY_KEEP = 8
_read_only: OrderedDict[int, ox.Store] = OrderedDict()  # the stores open_store opened


#: An updated store may weigh this much more than a store loaded from scratch with the same
#: triples; past it, the store is loaded from scratch instead. RocksDB keeps what an update
#: removes until it compacts, and its compactions compress less than the bulk loader, so
#: a store that is only ever updated grows with every build.
STORE_SLACK = 1.08


def loads_in_background(previous: str | Path | None) -> bool:
    """Whether :func:`write_rdf` with this ``previous`` builds the store in a thread of its
    own while Python writes ``graph.ttl`` (a store loaded from scratch, where the platform
    lets the loader read a pipe), from the same bytes: Python then writes ``graph.ttl`` at
    the loader's pace."""
    return previous is None and _PIPES.is_dir()


def write_rdf(kg: KnowledgeGraph | Spill, out: str | Path, *,
              previous: str | Path | None = None,
              each: Callable[[], object] | None = None) -> int:
    """Write ``graph.ttl`` and ``store/`` into ``out``; return the number of triples.

    The store is bulk-loaded from ``graph.ttl``: with no ``previous``, from its bytes as
    they are written, by Oxigraph in another thread (:func:`loads_in_background`).
    ``previous`` (an earlier ``OUT``) lends its unchanged paper blocks
    (:mod:`kg.stores.rdf_file`) and a copy of its store, changed by the difference only,
    unless the copy then weighs more than :data:`STORE_SLACK` times what a store loaded
    from scratch would (estimated from the last one loaded so). ``each`` is called after
    each paper's block of ``graph.ttl`` (a progress bar). ``kg`` may be a model on disk
    (:class:`~kg.stores.spill.Spill`): its papers are then written a few at a time.
    """
    out, previous = Path(out), None if previous is None else Path(previous)

    def write_turtle(kg: KnowledgeGraph | Spill, path: Path, **options: Any) -> Written:
        if isinstance(kg, KnowledgeGraph):
            return write_model_turtle(kg, path, **options)
        return write_blocks(kg.corpus_triples(), kg.parts(), path, **options)

    if loads_in_background(previous):
        with _StoreLoad(out / STORE) as load:
            written = write_turtle(kg, out / TURTLE, also=load.write, each=each)
            load.end()
        remember_store(out, out / STORE, (written.triples, store_size(out / STORE)))
        return written.triples
    written = write_turtle(kg, out / TURTLE, previous=previous, each=each)
    loaded = None
    if previous is not None and written.previous is not None:
        loaded = loaded_size(previous)
        if loaded is not None and not _update_copy(previous, out, written):
            loaded = None
        if loaded is not None and store_size(out / STORE) > \
                STORE_SLACK * loaded[1] * written.triples / max(loaded[0], 1):
            shutil.rmtree(out / STORE)
            loaded = None
    if loaded is None:
        store = ox.Store(str(out / STORE))
        bulk_load_pieces(store, out / TURTLE, written.index)
        store.flush()
        del store  # releases the RocksDB lock before the folder is moved
        loaded = (written.triples, store_size(out / STORE))
    remember_store(out, out / STORE, loaded)
    return written.triples


#: The store's loader skips checking IRIs and literals as it parses: ``graph.ttl`` is this
#: package's own output (its IRIs made from escaped ids, its literals escaped), so the
#: checks only read our writer's work again: 2,000 papers' ``graph.ttl`` into a store in
#: memory 3.2 -> 2.8 CPU-s (the same 1,192,280 quads), 20,000 papers' on disk in pieces
#: 120.6 -> 112.9 CPU-s (one run each). The tests parse ``graph.ttl`` strictly, fuzzed
#: input included, and compare the store with it.
LENIENT = True

#: Turtle bytes per bulk load: Oxigraph's loader holds what it is given until it has sorted
#: it (the 172 MB ``graph.ttl`` of 5,000 papers: 1.56 GB; in 32 MB pieces: 0.73 GB). More
#: pieces make RocksDB compact, and its compactions compress less: that store took 423 MB of
#: disk instead of 281 MB.
BULK_LOAD_BYTES = 32 * 2**20

#: Triples per bulk load, as well as :data:`BULK_LOAD_BYTES`: the loader's memory is
#: ~0.85 KB per triple it is given (each one parsed, then encoded and sorted three ways),
#: whatever their bytes. 32 MB of a paper's Turtle is ~0.45 M triples, but of the corpus
#: block's short salience and link triples, which grow with the corpus, many more: a
#: 2,000-paper ``graph.ttl`` loaded in 32 MB pieces peaked at 627 MB PSS (729,103 triples
#: in the first piece), in pieces of 200,000 triples at 199 MB.
BULK_LOAD_TRIPLES = 200_000


def turtle_triples(data: bytes) -> int:
    """How many triples ``data`` holds at most, Turtle as ``graph.ttl`` is written: a line
    per subject and per further predicate (a literal's line breaks are escaped), and
    ``" , "`` before each further object. Exact unless a literal holds ``" , "``.

    >>> turtle_triples(b'kgc:a a skos:Concept ;\\n\\tskos:altLabel "x" , "y" .\\n')
    3
    """
    return data.count(b"\n") + data.count(b" , ")


def _statements(f: BinaryIO, start: int, length: int, size: int = 1 << 20
                ) -> Iterator[bytes]:
    """The bytes ``start`` to ``start + length`` of ``f`` (whole statements of
    ``graph.ttl``), in parts of about ``size`` bytes, each cut after a statement's end
    (``" .\\n"``: a line break is never inside a term), so each part is valid Turtle after
    the header."""
    f.seek(start)
    left, rest = length, b""
    while left > 0:
        data = rest + f.read(min(size, left))
        left = start + length - f.tell()
        cut = data.rfind(b" .\n") + 3 if left > 0 else len(data)
        if cut < 3:  # no statement ends here yet: read on
            rest = data
            continue
        yield data[:cut]
        rest = data[cut:]


def bulk_load_pieces(store: ox.Store, path: Path, index: TurtleIndex,
               limit: int = BULK_LOAD_BYTES, triples: int = BULK_LOAD_TRIPLES) -> None:
    """Bulk-load ``path`` (``graph.ttl``) into ``store``, at most ``limit`` bytes and
    ``triples`` triples at a time.

    The pieces are whole paper blocks of ``index`` and parts of the corpus block cut
    between statements (each one valid Turtle after the file's ``@prefix`` header); a file
    within both limits is loaded in one go. glibc is given back the loader's free pages
    after each piece (:func:`~kg.core.collect.return_free_pages`).
    """
    total = index.corpus.triples + sum(b.triples for b in index.papers.values())
    if path.stat().st_size <= limit and total <= triples:
        store.bulk_load(path=str(path), format=ox.RdfFormat.TURTLE, lenient=LENIENT)
        return
    blocks = sorted([(b.start, b.length, b is index.corpus, b.triples)
                     for b in (index.corpus, *index.papers.values())])
    # the corpus block is read in parts of about an eighth of a piece's triples
    part = min(1 << 20, max(1 << 12, index.corpus.length * triples // max(
        8 * index.corpus.triples, 1)))
    parts: list[bytes] = []
    sent = counted = 0

    def load() -> None:
        store.bulk_load(head + b"".join(parts), format=ox.RdfFormat.TURTLE, lenient=LENIENT)
        parts.clear()
        return_free_pages()

    with open(path, "rb") as f:
        head = f.read(blocks[0][0])
        for start, length, split, n in blocks:
            if not split:
                f.seek(start)
            for data in _statements(f, start, length, part) if split else [f.read(length)]:
                if split:
                    n = turtle_triples(data)
                if parts and (sent + len(data) > limit or counted + n > triples):
                    load()
                    sent = counted = 0
                parts.append(data)
                sent += len(data)
                counted += n
        load()


#: Where a pipe's read end can be opened by path (Linux, macOS), for the bulk loader.
_PIPES = Path("/dev/fd")


class _StoreLoad:
    """A store bulk-loaded in a thread from the Turtle given to :meth:`write`.

    The loader reads pipes in Oxigraph's own code, without Python's lock, so the store is
    built on another core while Python writes ``graph.ttl`` (the same bytes). As
    :func:`bulk_load_pieces` does, a new bulk load (a new pipe, the header again) starts
    before a write that would take the piece past ``limit`` bytes or ``triples`` triples
    (:func:`turtle_triples`): each write is whole statements (a paper's block, a part of the
    corpus block). Leaving the ``with`` block waits for the store; an error of the loader
    is raised then (or at the first :meth:`write` after it stopped reading).
    """

    def __init__(self, path: Path, limit: int = BULK_LOAD_BYTES,
                 triples: int = BULK_LOAD_TRIPLES) -> None:
        self.path = path
        self.limit = limit
        self.triples = triples
        self.error: BaseException | None = None
        self._pipes: queue.SimpleQueue[int | None] = queue.SimpleQueue()
        self._pipe: BinaryIO | None = None
        self._head: bytes | None = None
        self._sent = 0
        self._counted = 0
        self._thread = threading.Thread(target=self._load, name="kg-store-load", daemon=True)

    def __enter__(self) -> _StoreLoad:
        self._thread.start()
        return self

    def _load(self) -> None:
        store = None
        while (read := self._pipes.get()) is not None:
            try:
                if self.error is None:
                    if store is None:
                        store = ox.Store(str(self.path))
                    store.bulk_load(path=str(_PIPES / str(read)), format=ox.RdfFormat.TURTLE,
                                    lenient=LENIENT)
                    return_free_pages()
            except BaseException as e:  # raised in the writing thread
                self.error = e
            finally:
                os.close(read)  # a writer still writing gets BrokenPipeError
        try:
            if self.error is None and store is not None:
                store.flush()
        except BaseException as e:
            self.error = e
        del store  # releases the RocksDB lock before the folder is moved

    def _open(self) -> None:
        read, write = os.pipe()
        self._pipes.put(read)
        self._pipe = os.fdopen(write, "wb", buffering=1 << 20)
        self._sent = self._counted = 0

    def write(self, data: bytes) -> None:
        n = turtle_triples(data)
        if self._head is None:  # the @prefix header: it starts every piece
            self._head = data
        elif self._pipe is not None and self._sent > len(self._head) and (
                self._sent + len(data) > self.limit or self._counted + n > self.triples):
            self._close_pipe()
        try:
            if self._pipe is None:
                self._open()
                if data is not self._head:
                    self._put(self._head)
            self._put(data)
            self._counted += n
        except BrokenPipeError:
            self._finish()
            raise

    def _put(self, data: bytes) -> None:
        assert self._pipe is not None
        self._pipe.write(data)
        self._sent += len(data)

    def _close_pipe(self) -> None:
        pipe, self._pipe = self._pipe, None
        if pipe is not None:
            with contextlib.suppress(BrokenPipeError):
                pipe.close()

    def end(self) -> None:
        """No more Turtle: the loader reads to its end and finishes the store."""
        self._close_pipe()
        self._pipes.put(None)

    def _finish(self) -> None:
        if self._thread.is_alive():
            self.end()
            self._thread.join()
        if self.error is not None:
            raise self.error

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        if error is None:
            self._finish()
            return
        with contextlib.suppress(BaseException):
            self._finish()  # the writer failed: its error goes on once the loader ended


def _update_copy(previous: Path, out: Path, written: Written) -> bool:
    """``out/store`` as a copy of ``previous/store`` with the changed blocks swapped.

    The copy is a RocksDB checkpoint (hard links, no bytes copied). ``False`` (and no
    store left behind) when the previous store was written to after its build or cannot
    be read; the caller then loads from scratch.
    """
    if not store_unchanged(previous, previous / STORE):
        return False
    target = out / STORE
    try:
        src = ox.Store.read_only(str(previous / STORE))
        src.backup(str(target))
        del src
        store = ox.Store(str(target))
        old = written.previous
        with open(previous / TURTLE, "rb") as f:
            f.seek(old.corpus.start)
            was = set(parse_block(f.read(old.corpus.length)))
            now = set(parse_block(written.corpus))
            stale = was - now
            for pid in written.dropped:
                f.seek(old.papers[pid].start)
                stale.update(parse_block(f.read(old.papers[pid].length)))
        for t in stale:
            store.remove(ox.Quad(t.subject, t.predicate, t.object))
        store.extend(ox.Quad(t.subject, t.predicate, t.object)
                     for t in [*(now - was), *parse_block(b"".join(written.added))])
        store.flush()
        del store
    except (OSError, SyntaxError, ValueError):
        shutil.rmtree(target, ignore_errors=True)
        return False
    return True


def require_built(out: str | Path, *parts: str) -> None:
    """Raise a one-line :class:`StoreError` unless ``out`` has every file in ``parts``."""
    out = Path(out)
    for part in parts:
        if not (out / part).exists():
            raise StoreError(Messages.NOT_BUILT.format(path=out, missing=part))


#: What RocksDB's errors say when the store's files are missing, truncated or changed.
_DAMAGE = ("Corruption", "IO error", "No such file", "checksum", "truncated", "bad magic")


def damaged(error: BaseException, path: str | Path | None = None) -> StoreError | None:
    """A one-line :class:`StoreError` if ``error`` says the store's files are damaged, else None.

    RocksDB names the damaged file in its message; ``path`` is named too when given.

    Examples
    --------
    >>> e = damaged(RuntimeError("Corruption: block checksum mismatch in s/000010.sst"))
    >>> str(e).startswith("the store is damaged and cannot be read (Corruption: block")
    True
    >>> damaged(OSError("Error 500 returned by http://example.org/sparql")) is None
    True
    """
    detail = " ".join(str(error).split())
    if not any(word in detail for word in _DAMAGE):
        return None
    return StoreError(Messages.DAMAGED.format(path=path or "the store", detail=detail[:200]))


def open_store(out: str | Path) -> ox.Store:
    """Open ``OUT/store`` read-only (several readers may share it)."""
    out = Path(out)
    require_built(out, STORE)
    try:
        store = ox.Store.read_only(str(out / STORE))
    except (OSError, RuntimeError) as e:  # RocksDB: a missing or corrupt file of the store
        detail = " ".join(str(e).split())[:200]
        raise StoreError(Messages.DAMAGED.format(path=out / STORE, detail=detail)) from None
    _read_only[id(store)] = store  # held, so the id is not reused while remembered
    while len(_read_only) > _READ_ONLY_KEEP:
        _read_only.popitem(last=False)
    return store


def is_read_only(store: object) -> bool:
    """Whether ``store`` is one of the last stores :func:`open_store` opened (so it never changes).

    Query engines may then cache what they read from it (the concept table).
    """
    return _read_only.get(id(store)) is store


def open_rdflib_graph(out: str | Path) -> rdflib.Graph:
    """The built store as an rdflib :class:`~rdflib.Graph` backed by Oxigraph.

    Pass query strings to ``graph.query`` (prepared queries fall back to
    rdflib's slow engine).

    Examples
    --------
    >>> len(open_rdflib_graph("kg-out")) > 1000  # doctest: +SKIP
    True
    """
    import rdflib  # ~0.1 s: only for callers of this function
    from oxrdflib import OxigraphStore
    from rdflib.graph import DATASET_DEFAULT_GRAPH_ID

    graph = rdflib.Graph(store=OxigraphStore(store=open_store(out)),
                         identifier=DATASET_DEFAULT_GRAPH_ID)
    for prefix, ns in PREFIXES.items():
        graph.bind(prefix, ns)
    return graph


def load_model(out: str | Path) -> KnowledgeGraph:
    """The whole model of ``out`` (a str or a Path); one line if it is damaged.

    Read from ``OUT/model.sqlite`` (:func:`~kg.stores.model_index.read_model`), else from
    ``OUT/model.json`` (an ``OUT`` built before the tables held the whole model): the same
    model either way.

    Examples
    --------
    >>> len(load_model("kg-out").papers)  # doctest: +SKIP
    19
    """
    con = open_model_index(out)  # None if absent or too old; raises if damaged
    if con is not None:
        try:
            kg = read_model(con)
        except (sqlite3.DatabaseError, ValueError, KeyError, TypeError) as e:
            raise index_damaged(e, Path(out) / MODEL_DB) from None
        finally:
            con.close()
        if kg is not None:
            return kg
    require_built(out, MODEL)
    try:
        return KnowledgeGraph.load(Path(out) / MODEL)
    except (ValueError, KeyError, TypeError, AttributeError, IndexError) as e:
        # truncated or edited: not JSON, or JSON that is not a model (JSONDecodeError and
        # UnicodeDecodeError are ValueErrors)
        detail = " ".join(f"{type(e).__name__}: {e}".split())[:160]
        raise StoreError(Messages.DAMAGED.format(path=Path(out) / MODEL, detail=detail)
                         ) from None


def write_manifest(out: str | Path, data: dict) -> None:
    """Write ``manifest.json`` (sorted keys, so it is deterministic)."""
    (Path(out) / MANIFEST).write_text(json.dumps(data, indent=2, sort_keys=True) + "\n",
                                encoding="utf-8")
