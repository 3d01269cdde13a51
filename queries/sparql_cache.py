"""What the SPARQL engine keeps between calls: opened stores and their concept tables.

Resolving a concept name needs every concept with its labels (~35 ms on the
20,000-paper store, more than a rare concept's whole answer), so the table and
its name index are read once per store that cannot change: a store opened
read-only by :func:`kg.stores.out.open_store` (an ``OUT`` folder is opened once per
folder version: path, inode and modification time of ``OUT/store``). Other
stores (in-memory, writable) are read on every call.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path

import pyoxigraph as ox

from kg.core.layout import STORE
from kg.core.model import Concept
from kg.stores.out import is_read_only, open_store
from queries.concept_table import ConceptTable

__all__ = ["concept_table", "open_out"]

_KEEP = 8
_stores: OrderedDict[tuple, ox.Store] = OrderedDict()
_tables: OrderedDict[int, tuple[object, ConceptTable]] = OrderedDict()


def _remember(cache: OrderedDict, key, value) -> None:
    cache[key] = value
    cache.move_to_end(key)
    while len(cache) > _KEEP:
        cache.popitem(last=False)


def open_out(out: Path) -> ox.Store:
    """``OUT/store`` opened read-only, once per version of the folder."""
    try:
        st = (Path(out) / STORE).stat()
    except OSError:
        return open_store(Path(out))  # raises the usual one-line error
    key = (str(Path(out).resolve()), st.st_ino, st.st_mtime_ns)
    store = _stores.get(key)
    if store is None:
        store = open_store(Path(out))
    _remember(_stores, key, store)
    return store


def concept_table(store: object, load: Callable[[object], dict[str, Concept]]) -> ConceptTable:
    """The :class:`ConceptTable` of ``store``, read with ``load`` (cached when read-only)."""
    if not is_read_only(store):
        return ConceptTable(load(store))
    hit = _tables.get(id(store))
    if hit is not None and hit[0] is store:
        _tables.move_to_end(id(store))
        return hit[1]
    table = ConceptTable(load(store))
    _remember(_tables, id(store), (store, table))
    return table
