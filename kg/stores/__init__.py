"""Where a graph is kept: the RDF file and Oxigraph store of ``OUT``, Bolt, exports.

Built on :mod:`kg.core` only. :mod:`kg.stores.rdf` maps the model to triples,
:mod:`kg.stores.rdf_file` writes ``graph.ttl`` in reusable blocks,
:mod:`kg.stores.out` reads and writes an ``OUT`` folder (store, model; the store
as an rdflib graph: :func:`~kg.stores.out.open_rdflib_graph`),
:mod:`kg.stores.bolt` and :mod:`kg.stores.bolt_server` push to and serve a
property graph (the graph a build is asked about over Bolt:
:func:`~kg.stores.bolt.open_bolt_graph`), :mod:`kg.stores.sparql_push` loads a
SPARQL server, :mod:`kg.stores.sparql_terms` writes user text into SPARQL safely,
:mod:`kg.stores.export` writes other formats and :mod:`kg.stores.graph` derives
the networkx view.
"""
