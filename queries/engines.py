"""Pick a query engine by name (``--engine``) and run a helper against a built ``OUT``.

Each engine is a module with the helpers of ``docs/queries.md`` plus a way to
open its source from ``OUT``: the Python engine reads ``model.json``, the
SPARQL engine opens the Oxigraph store read-only. Register another engine by
adding it to :data:`ENGINES` and :func:`open_source`.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

#: engine name -> module with the helpers; the first one is the default.
ENGINES = {"sparql": "queries.sparql", "python": "queries.python", "cypher": "queries.cypher"}

#: helpers that live in modules of their own: helper -> engine -> module.
HELPER_MODULES = {
    "bridges": {"python": "queries.bridges", "sparql": "queries.bridges_sparql",
                "cypher": "queries.bridges_cypher"},
}


def open_source(engine: str, out: Path) -> Any:
    """What the helpers of ``engine`` take as their first argument, for the build ``out``."""
    if engine == "python":
        from kg.stores.out import load_model

        return load_model(out)
    if engine == "sparql":
        from kg.stores.out import open_store

        return open_store(out)
    if engine == "cypher":  # $NEO4J_URI, else the local Bolt server of OUT (kg.stores.bolt)
        from kg.stores.bolt import open_graph

        return open_graph(out)
    raise ValueError(f"unknown engine {engine!r}; choose from {', '.join(ENGINES)}")


def run(engine: str, out: str | Path, helper: str, *args: Any, **kwargs: Any) -> Any:
    """Answer ``helper(*args, **kwargs)`` with ``engine`` over the built folder ``out``.

    Examples
    --------
    >>> run("sparql", "kg-out", "related_papers", "neurips2026-abstracts-3")  # doctest: +SKIP
    [{'id': 'neurips2026-abstracts-14', ...}]
    """
    if engine not in ENGINES:
        raise ValueError(f"unknown engine {engine!r}; choose from {', '.join(ENGINES)}")
    module = importlib.import_module(HELPER_MODULES.get(helper, {}).get(engine, ENGINES[engine]))
    return getattr(module, helper)(open_source(engine, Path(out)), *args, **kwargs)
