"""The store is bulk-loaded from ``graph.ttl`` in pieces (bounded memory): the same triples."""

from __future__ import annotations

import pyoxigraph as ox

from kg.stores.out import bulk_load_pieces
from kg.stores.rdf_file import TurtleIndex


def test_a_store_loaded_in_pieces_has_every_triple_of_graph_ttl(example_out, tmp_path):
    whole = ox.Store()
    whole.bulk_load(path=str(example_out / "graph.ttl"), format=ox.RdfFormat.TURTLE)
    index = TurtleIndex.read(example_out)
    assert index is not None and len(index.papers) > 3
    pieces = ox.Store(str(tmp_path / "store"))
    limit = (example_out / "graph.ttl").stat().st_size // 5  # several pieces
    bulk_load_pieces(pieces, example_out / "graph.ttl", index, limit=limit)
    assert len(whole) > 1000
    assert set(pieces) == set(whole)
