import json

import pytest

from kg.core.errors import InputError
from kg.core.readers import derive_title, read_corpus
from tests.conftest import EXAMPLE


def test_text_reader_ids_titles_and_count():
    papers = read_corpus([EXAMPLE]).papers
    assert len(papers) == 19
    assert [p.id for p in papers[:2]] == ["neurips2026-abstracts-1", "neurips2026-abstracts-2"]
    assert papers[2].abstract.startswith("Graph Neural Networks (GNNs) have demonstrated")
    assert papers[2].title == "Graph Neural Networks (GNNs) have demonstrated remarkable " \
                              "effectiveness on graph-based tasks"
    assert all(p.title_derived and len(p.title) <= 101 for p in papers)
    # the header line is not a paper
    assert not any("论文" in p.abstract for p in papers)


def test_text_reader_joins_wrapped_lines(tmp_path):
    f = tmp_path / "mini.txt"
    f.write_text("My list\n\nFirst line\nsecond line.\n\n\nAnother abstract.\n", encoding="utf-8")
    papers = read_corpus([f]).papers
    assert [(p.id, p.abstract) for p in papers] == [
        ("mini-1", "First line second line."), ("mini-2", "Another abstract.")]


def test_derive_title_cuts_long_sentences_at_a_word():
    title = derive_title("word " * 50 + ". Next.")
    assert title.endswith("…") and len(title) <= 101 and "  " not in title


def test_jsonl_reader_fields(tmp_path):
    f = tmp_path / "c.jsonl"
    rows = [
        {"id": "a1", "title": "T1", "abstract": "About MinHash.", "keywords": ["hashing"],
         "venue": "NeurIPS", "year": 2018, "url": "https://example.org/a1"},
        {"id": 7, "title": "", "abstract": "No title here. Second."},
    ]
    f.write_text("\n".join(json.dumps(r) for r in rows) + "\n\n", encoding="utf-8")
    a, b = read_corpus([f]).papers
    assert (a.id, a.title, a.keywords, a.venue, a.year) == ("a1", "T1", ["hashing"], "NeurIPS",
                                                            2018)
    assert (b.id, b.title, b.title_derived) == ("7", "No title here", True)


def test_csv_reader_fields(tmp_path):
    f = tmp_path / "c.csv"
    f.write_text('id,title,abstract,keywords,year\np1,"A, title","Text with ""quotes"".",'
                 '"x; y",2020\n', encoding="utf-8")
    (p,) = read_corpus([f]).papers
    assert (p.id, p.title, p.abstract, p.keywords, p.year) == (
        "p1", "A, title", 'Text with "quotes".', ["x", "y"], 2020)


@pytest.mark.parametrize("name, content, message", [
    ("bad.jsonl", '{"id": "a", "abstract": "ok"}\n{"id": "b", "abstract": \n',
     "bad.jsonl:line 2: not a JSON object"),
    ("bad.jsonl", '{"id": "a", "title": "x"}\n', "bad.jsonl:line 1: record has no 'abstract'"),
    ("bad.jsonl", '{"id": "a", "abstract": "  "}\n', "bad.jsonl:line 1: record has an empty"),
    ("bad.csv", "id,title\n1,x\n", "bad.csv:line 1: CSV header must name the columns"),
    ("bad.txt", "Header only\n\n", "bad.txt: the file has a header line but no abstracts"),
    ("bad.txt", "", "bad.txt: the file is empty"),
    ("bad.xml", "<x/>", "unknown input format '.xml'"),
])
def test_bad_records_name_file_and_line(tmp_path, name, content, message):
    f = tmp_path / name
    f.write_text(content, encoding="utf-8")
    with pytest.raises(InputError) as e:
        read_corpus([f])
    assert message in str(e.value)
    assert "\n" not in str(e.value)


def test_duplicate_ids_with_different_content_are_rejected(tmp_path):
    f = tmp_path / "d.jsonl"
    f.write_text('{"id": "a", "abstract": "one"}\n{"id": "a", "abstract": "two"}\n')
    with pytest.raises(InputError, match="d.jsonl:line 2: paper id 'a' appears twice"):
        read_corpus([f])


def test_skip_mode_goes_on_past_bad_records(tmp_path):
    f = tmp_path / "s.jsonl"
    f.write_text('{"id": "a", "abstract": "one"}\nnot json\n{"id": "b", "abstract": "two"}\n')
    report = read_corpus([f], on_error="skip")
    assert [p.id for p in report.papers] == ["a", "b"]
    assert len(report.skipped) == 1 and "line 2" in str(report.skipped[0])
