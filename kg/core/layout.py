"""The files of a built ``OUT`` folder: one name each, known to every layer.

``model.json``
    the in-memory model as one JSON document, for other tools and for incremental builds;
``model.sqlite``
    the same model in indexed tables (:mod:`kg.stores.model_index`): the Python engine
    reads them by key, and whatever needs the whole model (pages, exports, pushes) reads
    it from them without parsing ``model.json``;
``graph.ttl``
    the RDF graph in Turtle, and ``graph-index.json``, where each paper's block lies
    in it (:mod:`kg.stores.rdf_file`: the next build reuses unchanged blocks);
``store/``
    the same triples in an embedded on-disk Oxigraph store, and ``store-files.json``,
    its files as the build left them (the next build copies the store only if nothing
    wrote to it);
``graph.html``
    the default interactive page;
``manifest.json``
    counts and the tool version;
``extract-cache.json``, ``extract-tokens.npy``
    what extraction found per text that the next build can reuse
    (:mod:`extractors.text_cache`).
"""

from __future__ import annotations

__all__ = ["CACHE", "INDEX", "MANIFEST", "MODEL", "MODEL_DB", "PAGE", "STORE", "STORE_FILES",
           "TOKENS", "TURTLE"]

MODEL = "model.json"
MODEL_DB = "model.sqlite"
TURTLE = "graph.ttl"
INDEX = "graph-index.json"
STORE = "store"
#: The store's files as the build left them: a later build reuses the store only if
#: nothing has written to it since; and the size of the last store loaded from scratch,
#: against which an updated copy is weighed.
STORE_FILES = "store-files.json"
PAGE = "graph.html"
MANIFEST = "manifest.json"
CACHE = "extract-cache.json"
TOKENS = "extract-tokens.npy"
