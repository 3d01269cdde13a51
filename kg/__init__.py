"""kg: turn research-paper abstracts into a knowledge graph.

The package is layered like rdflib: :mod:`kg.model` holds the in-memory terms
(papers, concepts, mentions), :mod:`kg.readers` reads corpora, :mod:`kg.build`
runs extraction and corpus-level normalisation, :mod:`kg.graph` derives the
networkx view, :mod:`kg.rdf` and :mod:`kg.store` write RDF, and :mod:`kg.cli`
is the ``kg`` command.
"""

__version__ = "0.1.0"
