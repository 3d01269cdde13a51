"""Reading a corpus a record at a time, its texts on disk (issue 17).

JSON Lines and CSV files are checked and then read a block and a line at a time (not held
whole, as bytes and as text, while their records are read); with ``papers_on_disk`` each
paper's title and abstract go to a temporary file as it is read; extraction's texts
(:class:`~extractors.field_texts.FieldTexts`) are read from the papers when asked for.
Each must give exactly what the whole-file, in-memory reading gave.
"""

from __future__ import annotations

import json
import tracemalloc

import pytest

from extractors.field_texts import CHUNK_CHARS, FieldTexts, field_texts
from kg.core.errors import InputError
from kg.core.model import Paper
from kg.core.paper_file import PaperFile, StoredPaper
from kg.core.readers import read_corpus

JSONL = (
    "\ufeff"  # a byte-order mark, then CRLF lines, a blank line, U+2028 inside a string
    '{"id": "a", "title": "Graph nets", "abstract": "GNNs (graph neural networks)\u2028work."}\r\n'
    "\r\n"
    '{"id": "b", "abstract": "We study $\\\\epsilon$-DP. It holds.", "keywords": ["DP"],'
    ' "venue": "ICLR", "year": 2018, "url": "https://x.org/b"}\n'
    '{"id": "a", "title": "Graph nets", "abstract": "GNNs (graph neural networks)\u2028work."}\n'
    '{"id": "c", "abstract": "Caf\u00e9 au lait \u00e9t\u00e9 \U0001f600."}'
)
CSV = ('\ufeffid,title,abstract,keywords\r\n'
       'p1,A title,"An abstract\nover two lines, with ""quotes"".",x; y\r\n'
       'p2,,Another abstract.,\r\n')


def fields(paper: Paper) -> tuple:
    return (paper.id, paper.title, paper.abstract, paper.keywords, paper.venue, paper.year,
            paper.url, paper.title_derived, paper.source)


@pytest.mark.parametrize(("name", "content"), [("c.jsonl", JSONL), ("c.csv", CSV),
                                               ("c.txt", "Header\n\nOne abstract.\n\nTwo.\n")])
def test_papers_on_disk_read_as_papers_in_memory(tmp_path, name, content):
    path = tmp_path / name
    path.write_bytes(content.encode())
    plain = read_corpus([path])
    stored = read_corpus([path], papers_on_disk=True)
    assert [fields(p) for p in stored.papers] == [fields(p) for p in plain.papers]
    assert all(isinstance(p, StoredPaper) for p in stored.papers)
    assert stored.duplicates == plain.duplicates
    if name == "c.jsonl":
        assert plain.duplicates == 1
        assert plain.papers[0].abstract == "GNNs (graph neural networks)\u2028work."
        assert [p.id for p in plain.papers] == ["a", "b", "c"]


def test_a_record_read_line_by_line_is_the_record_the_whole_file_gave(tmp_path):
    """Every line of a file read a line at a time, against ``json.loads`` of the whole
    file's lines (split on "\\n" only)."""
    records = [{"id": str(i), "abstract": f"Text {i} \u2028 \u0085 \u00e9\r with {'x' * i}."}
               for i in range(50)]
    data = "\n".join(json.dumps(r, ensure_ascii=i % 2 == 0) for i, r in enumerate(records))
    path = tmp_path / "c.jsonl"
    path.write_text(data + "\n", encoding="utf-8")
    assert [(p.id, p.abstract) for p in read_corpus([path]).papers] == [
        (r["id"], r["abstract"].strip()) for r in records]


def test_a_bad_byte_far_into_a_file_is_named_as_before_and_no_record_is_read(tmp_path):
    good = b"".join(b'{"id": "%d", "abstract": "Fine text number %d."}\n' % (i, i)
                    for i in range(40_000))  # past the first block the check reads
    assert len(good) > 1 << 20
    path = tmp_path / "late.jsonl"
    path.write_bytes(good + b'{"id": "x", "abstract": "caf\xe9"}\n')
    offset = len(good) + len(b'{"id": "x", "abstract": "caf')
    with pytest.raises(InputError) as e:
        read_corpus([path], papers_on_disk=True)
    assert str(e.value) == (f"{path}:line 40001: not valid UTF-8 text (byte 0xe9 at offset "
                            f"{offset}); is this a binary file?")
    # skipped as a whole, as a file that cannot be decoded always was: none of its records
    other = tmp_path / "other.jsonl"
    other.write_text('{"id": "o", "abstract": "Other."}\n')
    report = read_corpus([path, other], on_error="skip", papers_on_disk=True)
    assert [p.id for p in report.papers] == ["o"]
    assert len(report.skipped) == 1


def test_a_duplicate_id_names_the_first_record_as_the_file_was_named(tmp_path):
    path = tmp_path / "dup.jsonl"
    path.write_text('{"id": "a", "abstract": "one"}\n{"id": "a", "abstract": "two"}\n')
    for on_disk in (False, True):
        with pytest.raises(InputError, match=f"first at {path}:line 1"):
            read_corpus([path], papers_on_disk=on_disk)


def test_reading_does_not_hold_the_file(tmp_path):
    """The most memory Python holds while a 24 MB JSON Lines file is read, its texts on
    disk: a fraction of the file (reading it whole held it three times: bytes, text,
    lines)."""
    path = tmp_path / "big.jsonl"
    abstract = "We study graph neural networks on large benchmarks. " * 150  # ~8 KB
    with open(path, "w") as f:
        for i in range(3_000):
            f.write(json.dumps({"id": f"p{i}", "title": f"Paper {i}",
                                "abstract": f"{i} {abstract}"}) + "\n")
    size = path.stat().st_size
    assert size > 20_000_000
    tracemalloc.start()
    try:
        report = read_corpus([path], papers_on_disk=True)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(report.papers) == 3_000
    assert peak < size / 4, (peak, size)


def papers_with_every_kind_of_text() -> list[Paper]:
    huge = " ".join(f"Sentence {i} about graph neural networks." for i in range(6_000))
    assert len(huge) > 2 * CHUNK_CHARS
    return [
        Paper("p1", "Graph nets", r"We bound $\epsilon$ in \emph{GNNs} \cite{x}."),
        Paper("p2", "derived", "Only an abstract. Its title repeats it.", title_derived=True),
        Paper("p3", "", "An empty title."),
        Paper("p4", "Huge", huge),
        Paper("p5", "   ", "R&amp;D on <b>GANs</b> and **VAEs**"),
    ]


@pytest.mark.parametrize("on_disk", [False, True])
def test_field_texts_as_a_sequence_are_the_texts_field_texts_yields(on_disk):
    papers = papers_with_every_kind_of_text()
    expected = list(field_texts(papers))
    if on_disk:
        store = PaperFile()
        papers = [store.add(p) for p in papers]
    texts = FieldTexts(papers)
    assert len(texts) == len(expected) > len(papers)
    assert list(texts) == expected
    assert [texts.where(i) for i in range(len(texts))] == [w for _, w in expected]
    assert list(texts.pieces) == [t for t, _ in expected]
    assert texts[2:5] == expected[2:5] and texts.pieces[-2:] == [t for t, _ in expected[-2:]]
    # read out of order, the same
    assert [texts[i] for i in reversed(range(len(texts)))] == expected[::-1]
    texts.clear()
    assert len(texts) == 0 and list(texts) == []


def test_a_paper_replaced_by_its_stored_copy_is_read_from_then_on():
    papers = papers_with_every_kind_of_text()
    texts = FieldTexts(papers)
    expected = list(texts)
    store = PaperFile()
    papers[:] = [store.add(p) for p in papers]  # as extraction does, in place
    assert list(texts) == expected


@pytest.mark.parametrize("name", ["c.jsonl", "c.csv"])
def test_a_pipe_is_read_as_a_file_is(tmp_path, name):
    # a pipe cannot be read twice (checked, then read): it is read once, whole
    import os
    import threading

    content = (JSONL if name == "c.jsonl" else CSV).encode()
    path = tmp_path / name
    path.write_bytes(content)
    fifo = tmp_path / f"pipe-{name}"
    os.mkfifo(fifo)

    def write() -> None:
        with open(fifo, "wb") as f:
            f.write(content)

    writer = threading.Thread(target=write)
    writer.start()
    try:
        piped = read_corpus([fifo], papers_on_disk=True)
    finally:
        writer.join()
    assert [fields(p)[:-1] for p in piped.papers] == [
        fields(p)[:-1] for p in read_corpus([path]).papers]
