"""kg: turn research-paper abstracts into a knowledge graph.

The code is layered (``docs/architecture.md``); each layer imports only the ones
below it, which ``lint-imports`` checks:

1. :mod:`kg.core` — the foundation: model, vocabulary, errors, readers, text rules,
   the files of ``OUT``;
2. :mod:`extractors` (text → mentions and concepts) and :mod:`kg.stores` (RDF,
   Oxigraph, Bolt, exports), side by side;
3. :mod:`queries` — the questions, one engine interface, three engines;
4. :mod:`visualizations` — the pages;
5. :mod:`kg.build` and :mod:`kg.cli` — the composition root: the build and the
   ``kg`` command.
"""

__version__ = "0.1.0"
