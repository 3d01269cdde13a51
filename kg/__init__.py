"""kg: turn research-paper abstracts into a knowledge graph.

The code is layered (``docs/architecture.md``); each layer imports only the ones
below it, which ``lint-imports`` checks:

1. :mod:`kg.core` — the foundation: model, vocabulary, errors, readers, text rules,
   the files of ``OUT``;
2. :mod:`extractors` (text → mentions and concepts) and :mod:`kg.stores` (RDF,
   Oxigraph, Bolt, exports), side by side;
3. :mod:`queries` — the questions, one engine interface, three engines;
4. :mod:`visualizations` — the pages;
5. :mod:`kg.build`, :mod:`kg.cli` and :mod:`kg.api` — the composition root: the build,
   the ``kg`` command and the Python API.

The Python API (``docs/python.md``) is importable from here — ``kg.open_graph``,
``kg.build_graph``, ``kg.Graph``, ``kg.Page`` — but loaded only when first used, so that
importing the foundation (``kg.core``) does not import every layer above it.
"""

from __future__ import annotations

from typing import Any

from kg.core.version import __version__

__all__ = ["Graph", "Page", "__version__", "build_graph", "open_graph"]

_API = frozenset(__all__) - {"__version__"}


def __getattr__(name: str) -> Any:
    # PEP 562: kg.api (the top layer) is imported at the first use of one of its names
    if name in _API:
        from kg import api

        return getattr(api, name)
    raise AttributeError(f"module 'kg' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *_API])
