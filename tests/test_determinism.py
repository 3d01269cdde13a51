"""The same input gives byte-identical outputs and the same ids on every run and machine.

Builds run as separate processes with different ``PYTHONHASHSEED`` values, so any
dependence on set or dict-of-set iteration order (which changes with the hash seed)
shows up as differing bytes.
"""

from __future__ import annotations

import json
import shutil

import pytest

from tests.conftest import EXAMPLE, NEURIPS2018_SAMPLE
from tests.guard import kg

OUTPUTS = ("graph.ttl", "model.json", "model.sqlite", "manifest.json", "graph.html")


def _build(corpus, out, seed: str, cwd) -> dict[str, bytes]:
    kg("build", corpus, "-o", out, "-q", env={"PYTHONHASHSEED": seed}, cwd=cwd, check=True)
    return {name: (out / name).read_bytes() for name in OUTPUTS}


def _copy_input(src, tmp_path, *, lines: int | None = None):
    (tmp_path / "in").mkdir()
    dest = tmp_path / "in" / src.name
    if lines is None:
        return shutil.copy(src, dest)
    with open(src, encoding="utf-8") as f:  # a slice of a real corpus keeps the test quick
        dest.write_text("".join(f.readline() for _ in range(lines)), encoding="utf-8")
    return dest


@pytest.mark.parametrize("corpus", ["example", "neurips2018-sample"])
def test_two_builds_with_different_hash_seeds_are_byte_identical(corpus, tmp_path):
    if corpus == "example":
        src = _copy_input(EXAMPLE, tmp_path)
    else:  # real abstracts with LaTeX, acronyms defined across papers
        src = _copy_input(NEURIPS2018_SAMPLE, tmp_path, lines=120)
    rel = f"in/{src.name}"  # same input path both times: model.json records it
    a = _build(rel, tmp_path / "a", "0", tmp_path)
    b = _build(rel, tmp_path / "b", "4242", tmp_path)
    assert a.keys() == b.keys()
    for name in OUTPUTS:
        assert a[name] == b[name], f"{name} differs between runs"
    assert len(a["graph.ttl"]) > 1000
    model = json.loads(a["model.json"])
    assert model["mentions"] and model["concepts"]  # ids are in the bytes compared above


def test_graph_does_not_depend_on_where_the_input_lives(tmp_path):
    """Another folder, another path spelling: the same graph.ttl and the same ids."""
    src = EXAMPLE
    here = _copy_input(src, tmp_path)
    elsewhere = tmp_path / "x" / "y"
    elsewhere.mkdir(parents=True)
    shutil.copy(src, elsewhere / src.name)
    a = _build(f"in/{src.name}", tmp_path / "a", "1", tmp_path)
    b = _build(elsewhere / src.name, tmp_path / "b", "2", tmp_path / "x")
    assert a["graph.ttl"] == b["graph.ttl"]
    ma, mb = (json.loads(m["model.json"]) for m in (a, b))
    for m in (ma, mb):
        for p in m["papers"]:
            p.pop("source")
    assert ma == mb
    assert [p["id"] for p in ma["papers"]][:2] == ["neurips2026-abstracts-1",
                                                   "neurips2026-abstracts-2"]
    assert here.exists()
