"""The Python engine over OUT reads ``model.sqlite`` by key, not the whole ``model.json``.

Its answers are compared with every other engine's in tests/test_engines_agree*.py; here:
that it does not need ``model.json`` nor every concept for one topic, that an older OUT
without the file (or with an older format of it) still works, and
that a damaged file is one line naming it.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.guard import kg
from tests.test_hostile_queries import one_line_error


@pytest.fixture
def out(example_out, tmp_path):
    copy = tmp_path / "out"
    shutil.copytree(example_out, copy)
    return copy


def _papers(out, *extra):
    return kg("papers", out, "--concept", "GNNs", "--engine", "python", "--format", "json",
              *extra)


def test_the_python_engine_answers_without_reading_model_json(out):
    before = _papers(out)
    assert before.returncode == 0, before.stderr
    (out / "model.json").write_bytes(b"not the model")  # would fail to parse if read
    after = _papers(out)
    assert after.returncode == 0, after.stderr
    assert after.stdout == before.stdout and '"neurips2026-abstracts-3"' in after.stdout
    paper = kg("paper", out, "neurips2026-abstracts-3", "--engine", "python")
    assert paper.returncode == 0 and "graph neural network" in paper.stdout


def test_an_out_built_before_model_sqlite_is_answered_from_model_json(out):
    before = _papers(out)
    (out / "model.sqlite").unlink()
    after = _papers(out)
    assert after.returncode == 0, after.stderr
    assert after.stdout == before.stdout


@pytest.mark.parametrize("damage", ["truncate", "garbage", "empty"])
def test_a_damaged_model_sqlite_is_one_line_naming_it(out, damage):
    path = out / "model.sqlite"
    data = path.read_bytes()
    if damage == "truncate":
        path.write_bytes(data[:len(data) // 3])
    elif damage == "garbage":
        path.write_bytes(bytes(b ^ 0x5A for b in data))
    else:
        path.write_bytes(b"")
    line = one_line_error(_papers(out))
    assert "is damaged" in line and "model.sqlite" in line and "kg build" in line, line


#: Libraries a question on ``model.sqlite`` has no use for: each costs start-up time
#: (spaCy ~0.6 s, rdflib ~0.1 s, pyoxigraph, rapidfuzz …) in every ``kg`` call.
HEAVY = ("spacy", "rdflib", "pyoxigraph", "networkx", "pyvis", "dask", "rapidfuzz", "pyarrow",
         "numpy", "scipy")


def test_a_question_on_model_sqlite_imports_no_heavy_library(out):
    """``kg papers --engine python`` imports what reading SQLite needs, nothing more
    (it imported pyoxigraph and rapidfuzz before)."""
    code = ("import sys\n"
            "from kg.cli import cli\n"
            f"cli(['papers', {str(out)!r}, '--concept', 'GNNs', '--engine', 'python', "
            "'--format', 'json'], standalone_mode=False)\n"
            f"print('loaded:', sorted(m for m in {HEAVY!r} if m in sys.modules))\n")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=Path(__file__).resolve().parents[1])
    assert run.returncode == 0, run.stderr
    assert '"neurips2026-abstracts-3"' in run.stdout  # it answered
    assert run.stdout.rstrip().endswith("loaded: []"), run.stdout[-300:]


def test_the_name_index_kept_in_model_sqlite_is_the_one_made_from_the_concepts(out):
    from kg.core.model import concept_index
    from queries.python_index import IndexedModelEngine

    table = IndexedModelEngine.from_out(out).concept_table()
    assert len(table.index) > len(table.concepts) > 50
    assert table.index == concept_index(table.concepts)


def test_a_model_sqlite_of_an_older_format_is_answered_from_model_json(out):
    import sqlite3

    before = _papers(out)
    con = sqlite3.connect(out / "model.sqlite")
    con.execute("DROP TABLE hierarchy")  # format 3 had no hierarchy table
    con.execute("UPDATE meta SET value = 3 WHERE key = 'format'")
    con.commit()
    con.close()
    after = _papers(out)
    assert after.returncode == 0, after.stderr
    assert after.stdout == before.stdout and after.stderr == before.stderr


def test_the_hierarchy_kept_in_model_sqlite_gives_every_concept_the_same_narrower_set(out):
    from kg.core.model import KnowledgeGraph
    from kg.stores.out import load_model
    from queries.python_index import IndexedModelEngine

    kg_model = load_model(out)
    table = IndexedModelEngine.from_out(out).concept_table()
    whole = KnowledgeGraph(concepts=kg_model.concepts)
    assert any(len(whole.descendants(c)) > 2 for c in kg_model.concepts)  # a real hierarchy
    for cid in kg_model.concepts:
        assert table.narrower(cid) == whole.descendants(cid), cid


def test_one_topic_reads_its_concepts_by_key_not_the_whole_concepts_table(out):
    """``kg papers --concept`` at 20,000 papers spent 0.5 s reading all 26,000 concepts."""
    from queries.python_index import IndexedModelEngine
    from queries.questions import papers_for_concept

    engine = IndexedModelEngine.from_out(out)
    statements: list[str] = []
    engine.con.set_trace_callback(statements.append)
    rows = papers_for_concept(engine, "GNNs")
    assert "neurips2026-abstracts-3" in [r["id"] for r in rows]
    assert any("FROM names WHERE key" in s for s in statements)
    assert not any("FROM concepts ORDER BY" in s or "FROM names ORDER BY" in s
                   for s in statements), statements


# -- the whole model from model.sqlite (kg viz, export, push, the Python API) -------------

@pytest.mark.parametrize("which", ["example_out", "neurips2018_out"])
def test_the_whole_model_read_from_model_sqlite_is_the_one_in_model_json(which, request):
    from kg.core.model import KnowledgeGraph
    from kg.stores.model_index import open_model_index, read_model

    built = request.getfixturevalue(which)
    from_json = KnowledgeGraph.load(built / "model.json")
    from_tables = read_model(open_model_index(built))
    assert from_tables is not None
    assert from_tables.relations and from_tables.mentions and from_tables.salience
    # statements whose sentence no mention has: numbered after the mentions' sentences
    said = {(r.paper, r.sentence) for r in from_json.relations}
    assert said - {(m.paper, m.sentence) for m in from_json.mentions}
    assert from_tables.to_json() == from_json.to_json()
    assert from_tables.relation_edges == from_json.relation_edges
    # one string object per equal sentence, as model.json's reader makes them
    first = {}
    for m in from_tables.mentions:
        assert first.setdefault(m.sentence, m.sentence) is m.sentence


def test_kg_viz_and_exports_read_model_sqlite_not_model_json(out, tmp_path):
    before = kg("export", out, "--format", "graphml", "-o", tmp_path / "a.graphml")
    assert before.returncode == 0, before.stderr
    (out / "model.json").write_bytes(b"not the model")  # would fail to parse if read
    after = kg("export", out, "--format", "graphml", "-o", tmp_path / "b.graphml")
    assert after.returncode == 0, after.stderr
    assert (tmp_path / "b.graphml").read_bytes() == (tmp_path / "a.graphml").read_bytes()
    page = kg("viz", out, "-o", tmp_path / "page.html")
    assert page.returncode == 0, page.stderr
    assert "neurips2026-abstracts-3" in (tmp_path / "page.html").read_text(encoding="utf-8")


def test_a_model_whose_items_are_not_in_paper_order_is_read_from_model_json(tmp_path):
    from kg.core.model import Concept, KnowledgeGraph, Mention, Paper
    from kg.stores.model_index import open_model_index, read_model, write_model_index
    from kg.stores.out import load_model

    papers = {p: Paper(p, "T", "GNNs work.") for p in ("a", "b")}
    mentions = [Mention(p, "gnn", "abstract", 0, 4, "GNNs", "GNNs work.", "acronym")
                for p in ("b", "a")]  # not grouped by paper in id order, as a build sorts them
    model = KnowledgeGraph(papers=papers, concepts={"gnn": Concept("gnn", "GNN")},
                           mentions=mentions)
    write_model_index(model, tmp_path / "model.sqlite")
    model.save(tmp_path / "model.json")
    assert read_model(open_model_index(tmp_path)) is None
    assert [m.paper for m in load_model(tmp_path).mentions] == ["b", "a"]


def test_a_format_4_model_sqlite_still_answers_questions_and_the_whole_model_is_model_json(
        out, tmp_path):
    import sqlite3

    from kg.stores.model_index import open_model_index, read_model

    before = _papers(out)
    con = sqlite3.connect(out / "model.sqlite")
    con.execute("UPDATE meta SET value = 4 WHERE key = 'format'")  # built before format 5
    con.execute("DELETE FROM meta WHERE key = 'whole'")
    con.commit()
    con.close()
    assert read_model(open_model_index(out)) is None
    (out / "model.json").write_bytes(b"not the model")
    after = _papers(out)  # questions: from the tables, as before
    assert after.returncode == 0, after.stderr
    assert after.stdout == before.stdout
    line = one_line_error(kg("viz", out, "-o", tmp_path / "page.html"))  # the whole model
    assert "is damaged" in line and "model.json" in line, line
