"""Incremental builds: a rebuild into an existing OUT re-extracts only new or changed texts
and writes exactly what a build from scratch writes."""

from __future__ import annotations

import multiprocessing
from pathlib import Path

import pyoxigraph as ox
import pytest

from extractors import pipeline
from kg.build import build
from kg.core.layout import CACHE, INDEX
from kg.stores import out as kg_store
from kg.stores import rdf_file
from tests.guard import store_quads

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "neurips2026-abstracts.txt"


def _corpus(path: Path, paragraphs: list[str]) -> Path:
    path.write_text("\n\n".join(paragraphs) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def paragraphs() -> list[str]:
    return [p for p in EXAMPLE.read_text(encoding="utf-8").split("\n\n") if p.strip()]


def _count_calls(monkeypatch, module, name: str):
    """Count the calls of ``module.name`` from now on (the count is ``[n]``), also those made
    in the process the build extracts in (``run_apart``: a shared counter)."""
    calls = multiprocessing.Array("q", 1)
    real = getattr(module, name)

    def counting(*args, **kwargs):
        calls[0] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, counting)
    return calls


def _model_runs(monkeypatch):
    """Count the texts that go through the span model (its output is read by model_spans)."""
    return _count_calls(monkeypatch, pipeline, "model_spans")


def test_adding_and_changing_abstracts_matches_a_build_from_scratch(tmp_path, paragraphs,
                                                                    monkeypatch):
    if pipeline.span_model_dir() is None:
        pytest.skip("no span model installed: nothing to cache")
    head, first = paragraphs[0], paragraphs[1:11]
    corpus = tmp_path / "neurips2026-abstracts.txt"  # same name: same paper ids
    build([_corpus(corpus, [head, *first])], tmp_path / "out", page=False)
    assert (tmp_path / "out" / CACHE).is_file()

    changed = [head, *paragraphs[1:], paragraphs[3].replace("We ", "Here we ", 1)]
    changed[2] = changed[2] + " We also study calibration of Time Series Foundation Models."
    runs = _model_runs(monkeypatch)
    blocks = _blocks_made(monkeypatch)
    build([_corpus(corpus, changed)], tmp_path / "out", page=False)
    new_papers = len(changed) - 1 - len(first) + 1  # the added ones and the changed one
    assert 0 < runs[0] <= 2 * new_papers  # a title and an abstract per new paper at most
    # RDF of unchanged papers is copied from the previous graph.ttl, not made again
    assert new_papers <= blocks[0] < len(changed) - 1

    build([corpus], tmp_path / "scratch", page=False, incremental=False)
    for name in ("model.json", "model.sqlite", "graph.ttl", INDEX):
        assert (tmp_path / "out" / name).read_bytes() == \
            (tmp_path / "scratch" / name).read_bytes(), name
    assert store_quads(tmp_path / "out") == store_quads(tmp_path / "scratch")


def store_size(store: Path) -> int:
    return sum(f.stat().st_size for f in store.iterdir() if f.is_file())


def test_three_incremental_builds_leave_a_store_the_size_of_a_fresh_one(tmp_path, paragraphs):
    """Each update of a copied store used to leave it bigger (RocksDB keeps what is removed
    until it compacts, and a parsed block's quads never matched the triples they replace):
    2.3 → 7.8 MB in three builds of the NeurIPS 2018 sample, against 2.5 MB fresh."""
    head, out = paragraphs[0], tmp_path / "out"
    corpus = tmp_path / "neurips2026-abstracts.txt"
    for n in (10, 13, 16, 19):
        build([_corpus(corpus, [head, *paragraphs[1:n + 1]])], out, page=False)
    build([corpus], tmp_path / "fresh", page=False, incremental=False)
    fresh = store_size(tmp_path / "fresh" / "store")
    assert store_size(out / "store") <= 1.10 * fresh, (store_size(out / "store"), fresh)
    assert store_quads(out) == store_quads(tmp_path / "fresh")


def _blocks_made(monkeypatch) -> list[int]:
    """Count the paper blocks of graph.ttl that are generated (not copied)."""
    return _count_calls(monkeypatch, rdf_file, "paper_block")


def test_a_previous_store_that_does_not_match_its_graph_is_not_reused(tmp_path, paragraphs):
    corpus = _corpus(tmp_path / "c.txt", paragraphs[:5])
    out = tmp_path / "out"
    build([corpus], out, page=False)
    store = ox.Store(str(out / "store"))  # someone changed the store behind our back
    store.add(ox.Quad(ox.NamedNode("urn:stray"), ox.NamedNode("urn:p"), ox.Literal("x")))
    store.flush()
    del store
    _corpus(corpus, paragraphs[:7])
    build([corpus], out, page=False)
    build([corpus], tmp_path / "scratch", page=False, incremental=False)
    assert store_quads(out) == store_quads(tmp_path / "scratch")


def test_a_rebuild_of_the_same_corpus_runs_no_model(tmp_path, paragraphs, monkeypatch):
    if pipeline.span_model_dir() is None:
        pytest.skip("no span model installed: nothing to cache")
    corpus = _corpus(tmp_path / "c.txt", paragraphs[:6])
    build([corpus], tmp_path / "out", page=False)
    before = (tmp_path / "out" / "model.json").read_bytes()
    runs = _model_runs(monkeypatch)
    build([corpus], tmp_path / "out", page=False)
    assert runs[0] == 0
    assert (tmp_path / "out" / "model.json").read_bytes() == before


def test_a_stale_or_broken_cache_is_ignored(tmp_path, paragraphs):
    corpus = _corpus(tmp_path / "c.txt", paragraphs[:4])
    build([corpus], tmp_path / "scratch", page=False, incremental=False)
    out = tmp_path / "out"
    build([corpus], out, page=False)
    (out / CACHE).write_text("{not json", encoding="utf-8")
    build([corpus], out, page=False)
    assert (out / "model.json").read_bytes() == (tmp_path / "scratch" / "model.json").read_bytes()


def test_removing_papers_drops_their_triples(tmp_path, paragraphs, monkeypatch):
    head, body = paragraphs[0], paragraphs[1:8]
    corpus = tmp_path / "neurips2026-abstracts.txt"
    out = tmp_path / "out"
    build([_corpus(corpus, [head, *body])], out, page=False)
    # two papers gone, one changed: their old blocks must leave the reused store
    fewer = [head, *body[:4], body[4] + " We also study MinHash sketches."]
    reused = []
    real = kg_store._update_copy
    monkeypatch.setattr(kg_store, "_update_copy", lambda *a: reused.append(real(*a)) or reused[-1])
    build([_corpus(corpus, fewer)], out, page=False)
    assert reused == [True]  # the previous store was copied and updated, not reloaded
    build([corpus], tmp_path / "scratch", page=False, incremental=False)
    assert (out / "graph.ttl").read_bytes() == (tmp_path / "scratch" / "graph.ttl").read_bytes()
    assert store_quads(out) == store_quads(tmp_path / "scratch")


def test_a_field_in_pieces_leaves_the_cached_records_as_extracted(paragraphs):
    # the spans of a text at offset 0 share its cached record's lists (record_spans); the
    # pieces of a huge field are joined into new lists, or the record of its first piece
    # would grow by the others and the next build would read them twice
    from kg.core.model import Paper

    long = Paper("long", "Long", " ".join(paragraphs * 5))
    assert len(long.abstract) > pipeline.CHUNK_CHARS
    corpus = [long, Paper("short", "Short", paragraphs[0])]
    cache: dict = {}
    first = pipeline.extract_corpus(corpus, cache=cache, workers=1)
    assert len(cache) > 3  # both titles, the short abstract, the pieces of the long one
    kept = {k: (list(r.sents), list(r.model), list(r.coined), r.tokens.tolist())
            for k, r in cache.items()}
    assert pipeline.extract_corpus(corpus, cache=cache, workers=1) == first
    assert {k: (list(r.sents), list(r.model), list(r.coined), r.tokens.tolist())
            for k, r in cache.items()} == kept
    assert pipeline.extract_corpus(corpus, workers=1) == first


def test_a_cache_written_by_extraction_is_the_cache_it_kept(paragraphs, tmp_path):
    # with cache_to, extraction writes the updated cache itself, the new records read back
    # from its span file (extractors.span_file): the same files as writing the records it
    # keeps in memory otherwise, and the same graph; from no cache, then over a kept one
    from extractors import text_cache
    from kg.core.layout import TOKENS
    from kg.core.model import Paper

    long = Paper("long", "Long", " ".join(paragraphs * 5))
    corpus = [long, *(Paper(f"p{i}", f"T{i}", p) for i, p in enumerate(paragraphs[:4]))]
    changed = [*corpus[1:], Paper("new", "New", paragraphs[5])]
    for step, papers in enumerate((corpus, changed)):
        cache = text_cache.read(tmp_path / "expected0") if step else {}
        written, expected = tmp_path / f"written{step}", tmp_path / f"expected{step}"
        written.mkdir()
        expected.mkdir()
        graph = pipeline.extract_corpus(papers, cache=dict(cache), cache_to=written, workers=1)
        assert graph == pipeline.extract_corpus(papers, cache=cache, workers=1)  # in memory
        text_cache.write(expected, cache)
        for name in (CACHE, TOKENS):
            assert (written / name).read_bytes() == (expected / name).read_bytes()
    assert graph == pipeline.extract_corpus(changed, workers=1)
