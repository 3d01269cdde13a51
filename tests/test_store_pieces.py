"""The store is bulk-loaded from ``graph.ttl`` in pieces (bounded memory): the same triples."""

from __future__ import annotations

import pyoxigraph as ox

from kg.stores.out import bulk_load_pieces, turtle_triples
from kg.stores.rdf_file import TurtleIndex, header, parse_block


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


class _Counting:
    """A store that records what each bulk load is given."""

    def __init__(self, store):
        self.store = store
        self.loads: list[bytes] = []

    def bulk_load(self, data=None, format=None, **options):
        if data is not None:
            self.loads.append(data)
        return self.store.bulk_load(data, format, **options)


def test_pieces_are_cut_by_triples_within_the_corpus_block_too(example_out, tmp_path):
    """The corpus block (concepts, salience and links: many short triples) is cut between
    statements; every piece is valid Turtle after the header and has at most the limit."""
    index = TurtleIndex.read(example_out)
    assert index is not None and index.corpus.triples > 1000
    whole = ox.Store()
    whole.bulk_load(path=str(example_out / "graph.ttl"), format=ox.RdfFormat.TURTLE)
    store = _Counting(ox.Store(str(tmp_path / "store")))
    bulk_load_pieces(store, example_out / "graph.ttl", index, limit=10**9, triples=300)
    assert set(store.store) == set(whole)
    biggest_paper = max(b.triples for b in index.papers.values())
    assert len(store.loads) > index.corpus.triples // 300
    for data in store.loads:
        assert data.startswith(header())
        n = len(parse_block(data[len(header()):]))  # valid Turtle on its own
        assert n <= max(300, biggest_paper)
        assert n <= turtle_triples(data[len(header()):])  # a bound of the triples


def test_turtle_triples_counts_what_the_writer_writes(example_out):
    data = (example_out / "graph.ttl").read_bytes()[len(header()):]
    assert turtle_triples(data) == len(parse_block(data))
