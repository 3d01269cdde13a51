"""The Python API (``import kg``): docs/python.md runs as written, paths may be str."""

from __future__ import annotations

import doctest
import subprocess
import sys

import pytest

from tests.conftest import ROOT, paper_id

DOC = ROOT / "docs" / "python.md"


def test_docs_python_md_runs_as_a_notebook(tmp_path, monkeypatch):
    """The guide builds the example graph, asks three questions, converts and draws."""
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    monkeypatch.chdir(tmp_path)
    result = doctest.testfile(str(DOC), module_relative=False, verbose=False,
                              optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE,
                              report=True)
    assert result.attempted > 20
    assert result.failed == 0, f"{result.failed} example(s) of {DOC} failed (see above)"
    assert (tmp_path / "gnn.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_import_kg_exposes_the_api_without_loading_it_for_the_foundation():
    code = ("import sys, kg.core.model\n"
            "assert 'kg.api' not in sys.modules and 'queries' not in sys.modules\n"
            "import kg\n"
            "assert callable(kg.open_graph) and 'kg.api' in sys.modules\n"
            "print(sorted(kg.__all__))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, check=True).stdout
    assert out.strip() == "['Graph', 'Page', '__version__', 'build_graph', 'open_graph']"


def test_stores_take_str_paths(example_out):
    """``load_model("kg-out")`` and ``open_rdflib_graph("kg-out")`` raised TypeError."""
    from kg.stores.out import load_model, open_rdflib_graph, open_store

    out = str(example_out)
    assert len(load_model(out).papers) == 19
    assert len(open_rdflib_graph(out)) == len(open_store(out))


@pytest.mark.parametrize("engine", ["python", "sparql"])
def test_graph_methods_are_the_questions(example_out, engine):
    import kg
    from queries import QUESTIONS, run

    g = kg.open_graph(str(example_out), engine=engine)
    assert all(callable(getattr(g, name)) for name in QUESTIONS)
    assert g.papers_for_concept("GNNs") == run(engine, example_out, "papers_for_concept", "GNNs")
    assert g.ask("related_papers", paper_id(3), limit=2) == g.related_papers(paper_id(3),
                                                                             limit=2)
    with pytest.raises(ValueError, match="unknown question"):
        g.ask("nothing")


def test_open_graph_of_a_folder_that_was_not_built_says_so(tmp_path):
    import kg
    from kg.core.errors import StoreError

    with pytest.raises(StoreError, match="manifest.json"):
        kg.open_graph(tmp_path)


def test_page_escapes_the_whole_page_into_srcdoc():
    from html.parser import HTMLParser

    import kg

    page = kg.Page('<p title="x">a & b</p><script>alert("</iframe>")</script>', title='"t"')
    tags = []

    class Tags(HTMLParser):
        def handle_starttag(self, tag, attrs):
            tags.append((tag, dict(attrs)))

    Tags().feed(page._repr_html_())
    assert [t for t, _ in tags] == ["iframe"]  # nothing broke out of the attribute
    assert tags[0][1]["srcdoc"] == page.html and tags[0][1]["title"] == '"t"'


def test_build_graph_refuses_files_and_records_mixed(tmp_path):
    import kg

    with pytest.raises(ValueError, match="not both"):
        kg.build_graph([ROOT / "examples" / "neurips2026-abstracts.txt", {"abstract": "x"}],
                       tmp_path / "out")
