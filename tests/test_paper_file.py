"""Papers whose titles and abstracts wait in a temporary file (kg.core.paper_file)."""

import copy
import gc
import pickle
from dataclasses import replace

import pytest

from extractors import pipeline
from extractors.pipeline import extract_corpus
from kg.core.model import Paper
from kg.core.paper_file import KEPT_READS, PaperFile, StoredPaper
from tests.test_relations import PAPERS, PRONOUN

# ids of this module's own: other tests' papers are not counted
CORPUS = [Paper(f"paperfile-{p.id}", p.title, p.abstract, keywords=["k"], year=2020)
          for p in [*PAPERS, PRONOUN]]


def test_a_stored_paper_reads_back_every_field_and_holds_no_text():
    odd = Paper("odd", "Ünïcode 🧪 title", "A lone half \ud800 of a pair, and \x00 a NUL.",
                keywords=["graph"], venue="V", year=1999, url="u", title_derived=True,
                source="f:3")
    papers = [Paper(f"p{i}", f"Title {i}", "word " * i) for i in range(3 * KEPT_READS)]
    file = PaperFile()
    stored = [file.add(p) for p in [*papers, odd]]
    assert len(file) == len(papers) + 1
    # in an order that reads each paper again after it left the kept reads
    for k in [*range(len(stored)), *range(len(stored) - 1, -1, -1), 0, len(stored) - 1]:
        original = [*papers, odd][k]
        assert stored[k] == original and original == stored[k]
        assert stored[k].text("title") == original.title
        assert stored[k].text("abstract") == original.abstract
    assert stored[-1].fields == ("abstract",)  # title_derived came along
    assert stored[0] != stored[1]
    # the texts are in the file, not on the object
    for name in ("title", "abstract"):
        with pytest.raises(AttributeError):
            Paper.__dict__[name].__get__(stored[5])
        with pytest.raises(AttributeError):
            setattr(stored[5], name, "changed")
    assert stored[5].abstract == papers[5].abstract


def test_a_stored_paper_leaves_the_process_as_a_plain_paper():
    file = PaperFile()
    stored = file.add(CORPUS[0])
    for other in (pickle.loads(pickle.dumps(stored)), copy.copy(stored),
                  copy.deepcopy(stored), replace(stored, year=2021)):
        assert type(other) is Paper
        assert other.abstract == CORPUS[0].abstract and other.keywords == ["k"]
    assert replace(stored, year=2021).year == 2021


def test_the_file_goes_with_its_last_paper():
    file = PaperFile()
    stored = file.add(CORPUS[0])
    handle = file._file  # noqa: SLF001  (the file itself: is it closed?)
    del file
    gc.collect()
    assert not handle.closed and stored.title == CORPUS[0].title
    del stored
    gc.collect()
    assert handle.closed


def test_extraction_with_papers_on_disk_gives_the_same_graph(monkeypatch):
    held = extract_corpus(list(CORPUS), relations_on_disk=True)
    papers = list(CORPUS)
    seen: list[list[str]] = []
    resolve = pipeline.resolve_corpus

    def checking(found, papers_, *args, **kwargs):  # type: ignore[no-untyped-def]
        # consolidation reads texts from the file: no paper object holds one
        seen.append([type(p).__name__ for p in papers_])
        return resolve(found, papers_, *args, **kwargs)

    monkeypatch.setattr(pipeline, "resolve_corpus", checking)
    stored = extract_corpus(papers, relations_on_disk=True, papers_on_disk=True)
    assert seen == [["StoredPaper"] * len(CORPUS)]
    # the caller's list now holds the stored papers, which the graph shares
    assert all(isinstance(p, StoredPaper) for p in papers)
    assert all(stored.papers[p.id] is p for p in papers)
    assert stored.papers == held.papers and list(stored.papers) == list(held.papers)
    assert stored.mentions == held.mentions and len(held.mentions) > 10
    assert stored.concepts == held.concepts
    assert list(stored.relations) == list(held.relations)
