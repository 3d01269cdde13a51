"""Property-based tests: any file content is read or rejected with an InputError, any text
gives mentions whose ``text == field[start:end]``, and nothing crashes.

Example counts come from the hypothesis profile in :mod:`tests.guard` ("ci" by default;
``KG_HYPOTHESIS_PROFILE=deep`` for a long search).
"""

from __future__ import annotations

import csv
import io
import json
import tempfile
from pathlib import Path

import pyoxigraph as ox
from hypothesis import given
from hypothesis import strategies as st

# Imported here, not inside the tests: their first import changes the recursion limit,
# which hypothesis warns about when it happens during a test.
import extractors.pipeline  # noqa: F401
import visualizations.views  # noqa: F401
from kg.core.errors import InputError
from kg.core.model import Paper
from kg.core.readers import input_name, read_corpus
from tests.guard import few  # also loads the hypothesis profile

TEXT = st.characters(blacklist_categories=["Cs"])  # anything that can be UTF-8

# Pieces that steer random text towards what the extractor and readers care about.
CONCEPTS = ["graph neural networks", "GNNs", "Graph Neural Networks (GNNs)", "diffusion models",
            "MinHash", "CIFAR-10", "reinforcement learning", "RL", "LLMs", "Time Series "
            "Foundation Models (TSFMs)", "TSFM", "contrastive learning", "KL divergence"]
MARKUP = ["$", "$$", "\\emph{", "}", "{", "<b>", "</b>", "&amp;", "&#x3C;", "**", "`", "[",
          "](http://x.org/a_(b))", "\\cite{a}", "<!--", "-->", "\n", "\r\n", "\u2028", " ",
          "  ", "(", ")", "-", "\u00ad", "\u200b", "e\u0301", "\ufeff", "\x00", "\t", ".",
          ". ", "; ", "s", "'s", "\U0001F600", "ﬁ", "İ", "\u202e"]
PIECE = st.one_of(st.text(TEXT, max_size=12), st.sampled_from(CONCEPTS), st.sampled_from(MARKUP))
PROSE = st.lists(PIECE, max_size=25).map("".join)


def _read(name: str, data: bytes, on_error: str):
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / name
        path.write_bytes(data)
        try:
            report = read_corpus([path], on_error=on_error)
        except InputError as e:
            assert str(e).startswith(str(path)), e
            return path, None
        _check_report(report, path)
        return path, report


def _check_report(report, path) -> None:
    ids = [p.id for p in report.papers]
    assert len(ids) == len(set(ids)) and report.papers
    for p in report.papers:
        assert p.abstract.strip() and p.id
        for text in (p.id, p.title, p.abstract):
            text.encode("utf-8")  # writable as RDF, JSON and HTML
        assert p.source.startswith(f"{input_name(path)}:")  # as model.json names files
    for e in report.skipped:
        assert isinstance(e, InputError) and str(e).startswith(str(path))


# -- readers ---------------------------------------------------------------------------


@given(data=st.binary(max_size=600), suffix=st.sampled_from([".txt", ".jsonl", ".csv"]),
       on_error=st.sampled_from(["raise", "skip"]))
def test_readers_take_any_bytes(data, suffix, on_error):
    _read("corpus" + suffix, data, on_error)


JSON_VALUE = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(TEXT)
    | PROSE, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(TEXT), inner,
                                                                          max_size=3),
    max_leaves=6)
FIELDS = ["id", "title", "abstract", "keywords", "venue", "year", "url", "other"]
RECORD = st.one_of(
    st.dictionaries(st.sampled_from(FIELDS), st.one_of(PROSE, JSON_VALUE), max_size=7),
    st.fixed_dictionaries(  # mostly well-formed, so that many records get through
        {"abstract": PROSE.filter(str.strip)},
        optional={"id": PROSE | st.integers(), "title": PROSE, "keywords": st.lists(PROSE),
                  "venue": PROSE, "year": st.integers(-10**6, 10**6) | PROSE, "url": PROSE}))
JSONL_LINE = st.one_of(RECORD.map(lambda r: json.dumps(r, ensure_ascii=False)),
                       RECORD.map(json.dumps), st.text(TEXT, max_size=30), JSON_VALUE.map(
                           json.dumps))


@given(lines=st.lists(JSONL_LINE, max_size=8), on_error=st.sampled_from(["raise", "skip"]))
def test_jsonl_reader_takes_any_records(lines, on_error):
    _read("corpus.jsonl", "\n".join(lines).encode("utf-8"), on_error)


@given(header=st.lists(st.sampled_from(FIELDS) | st.text(TEXT, max_size=5), max_size=6),
       rows=st.lists(st.lists(PROSE, max_size=7), max_size=6),
       on_error=st.sampled_from(["raise", "skip"]))
def test_csv_reader_takes_any_table(header, rows, on_error):
    buf = io.StringIO(newline="")
    w = csv.writer(buf)
    w.writerow(header)
    w.writerows(rows)
    _read("corpus.csv", buf.getvalue().encode("utf-8"), on_error)


@given(header=st.text(TEXT, max_size=20), paragraphs=st.lists(PROSE, max_size=6),
       sep=st.sampled_from(["\n\n", "\n \n", "\r\n\r\n", "\n\n\n"]))
def test_text_reader_takes_any_paragraphs(header, paragraphs, sep):
    path, report = _read("corpus.txt", sep.join([header, *paragraphs]).encode("utf-8"), "raise")
    if report is not None:
        assert [p.id for p in report.papers] == [f"corpus-{i}" for i in
                                                 range(1, len(report.papers) + 1)]


# -- extractor -------------------------------------------------------------------------


PAPER = st.builds(
    lambda title, abstract, derived: (title, abstract, derived),
    PROSE, PROSE.filter(lambda s: s.strip()), st.booleans())


@few(10)
@given(papers=st.lists(PAPER, min_size=1, max_size=6))
def test_any_text_gives_mentions_that_index_the_field_exactly(papers):
    from extractors.pipeline import extract_corpus

    corpus = [Paper(f"p{i}", title, abstract, title_derived=derived)
              for i, (title, abstract, derived) in enumerate(papers)]
    kg = extract_corpus(corpus)
    by_id = {p.id: p for p in corpus}
    for m in kg.mentions:
        p = by_id[m.paper]
        text = p.text(m.field)
        assert m.field in p.fields
        assert 0 <= m.start < m.end <= len(text)
        assert text[m.start:m.end] == m.text
        assert m.concept in kg.concepts
    for c in kg.concepts.values():
        assert all(b in kg.concepts for b in c.broader)


@few(8)
@given(lines=st.lists(JSONL_LINE, min_size=1, max_size=6))
def test_whatever_the_reader_accepts_builds(lines):
    """End to end: accepted records give a graph whose Turtle parses and offsets are exact."""
    from kg.build import build

    with tempfile.TemporaryDirectory() as d:
        src = Path(d) / "c.jsonl"
        src.write_text("\n".join(lines), encoding="utf-8")
        try:
            read_corpus([src], on_error="skip")
        except InputError:
            return  # nothing readable: the bad-input tests cover the message
        result = build([src], Path(d) / "out", on_error="skip")
        ttl = (Path(d) / "out" / "graph.ttl").read_bytes()
        assert len(list(ox.parse(ttl, format=ox.RdfFormat.TURTLE))) == result.triples
        papers = result.graph.papers
        for m in result.graph.mentions:
            assert papers[m.paper].text(m.field)[m.start:m.end] == m.text
