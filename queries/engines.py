"""The engines, registered in one table, and how a source finds its engine.

Like rdflib's plugins, an engine is named here and imported only when used.
``kg --engine NAME`` offers every engine of :data:`ENGINES` (the first is the
default), and the differential test asks each of them every question.

Register another engine by writing a module with a class that implements
:class:`queries.engine.Engine` and adding one :class:`Entry` line below.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from queries.engine import Engine

__all__ = ["ENGINES", "Entry", "engine_for", "open_engine"]


@dataclass(frozen=True)
class Entry:
    """Where an engine lives and what it answers from."""

    module: str
    cls: str
    #: one line for ``--help``
    help: str
    #: the types of source it takes directly, as ``module.QualName`` (not imported)
    sources: tuple[str, ...] = ()

    def load(self) -> type[Engine]:
        """The engine class (its module is imported now)."""
        return getattr(importlib.import_module(self.module), self.cls)


#: engine name -> entry; the first one is the default.
ENGINES: dict[str, Entry] = {
    "sparql": Entry("queries.sparql", "SparqlEngine", "SPARQL over the Oxigraph store of OUT",
                    ("pyoxigraph.Store",)),
    "python": Entry("queries.python", "PythonEngine", "Python over OUT/model.sqlite (read by key)",
                    ("kg.core.model.KnowledgeGraph",)),
    "cypher": Entry("queries.cypher", "CypherEngine",
                    "Cypher over Bolt ($NEO4J_URI, else a local server of OUT)",
                    ("kg.stores.bolt.BoltGraph",)),
}


def _unknown(name: str) -> ValueError:
    return ValueError(f"unknown engine {name!r}; choose from {', '.join(ENGINES)}")


def open_engine(name: str, out: str | Path) -> Engine:
    """The engine ``name`` over the built folder ``out``."""
    if name not in ENGINES:
        raise _unknown(name)
    return ENGINES[name].load().from_out(Path(out))


def engine_for(source: Any) -> Engine:
    """The engine that answers from ``source``.

    ``source`` is an engine, a source an engine takes directly (a
    :class:`~kg.core.model.KnowledgeGraph`, a :class:`pyoxigraph.Store`, a
    :class:`~kg.stores.bolt.BoltGraph`), or a built ``OUT`` folder (the default
    engine over it).

    Examples
    --------
    >>> from kg.core.model import KnowledgeGraph
    >>> engine_for(KnowledgeGraph()).name
    'python'
    """
    if isinstance(source, Engine):
        return source
    if isinstance(source, (str, Path)):
        return open_engine(next(iter(ENGINES)), source)
    names = {f"{k.__module__}.{k.__qualname__}" for k in type(source).__mro__}
    for entry in ENGINES.values():
        if names & set(entry.sources):
            # every engine class is built from one of its ``sources``
            return cast(Callable[[Any], Engine], entry.load())(source)
    raise TypeError(f"no engine answers from a {type(source).__name__}; "
                    f"pass an OUT folder or one of {', '.join(ENGINES)}'s sources")

