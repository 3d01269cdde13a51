"""The ``kg`` command, run as users run it (a subprocess, so the console script is real)."""

import json
import subprocess
import sys

import pytest

from tests.conftest import EXAMPLE, paper_id


def kg(*args, check=True):
    proc = subprocess.run([sys.executable, "-m", "kg", *map(str, args)], capture_output=True,
                          text=True, timeout=300)
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


# What a careful reader of the 19 abstracts lists for each family (paper numbers).
FAMILIES = {
    "graph neural networks": {3, 14, 18},
    "GNNs": {3, 14, 18},
    "diffusion models": {1},
    "MinHash": {11},
    "reinforcement learning": {12, 16, 17},
    "RL": {12, 16, 17},
    "large language models": {14, 15, 17},
    "LLM": {14, 15, 17},
    "differential privacy": {6},
    "attention": {2, 7},
}


@pytest.mark.parametrize("text, expected", FAMILIES.items())
def test_papers_by_concept_match_a_careful_reader(example_out, text, expected):
    rows = json.loads(kg("papers", example_out, "--concept", text, "--format", "json").stdout)
    assert {r["id"] for r in rows} == {paper_id(n) for n in expected}
    assert all(r["title"] and r["evidence"] for r in rows)


def test_build_writes_outputs_and_summary(tmp_path):
    out = tmp_path / "o"
    proc = kg("build", EXAMPLE, "-o", out)
    assert "19 papers" in proc.stderr and proc.stdout == ""  # status, not data
    for name in ("graph.ttl", "store", "graph.html", "model.json", "manifest.json"):
        assert (out / name).exists(), name


def test_unknown_concept_gives_a_hint_and_exit_2(example_out):
    proc = kg("papers", example_out, "--concept", "difusion model", check=False)
    assert proc.returncode == 2
    assert "no concept matches 'difusion model'; did you mean 'diffusion model'" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_concepts_and_paper_commands(example_out):
    rows = json.loads(kg("concepts", example_out, "--type", "dataset", "--format", "json").stdout)
    assert [r["label"] for r in rows] == ["CIFAR-10", "neural data"]
    detail = json.loads(kg("paper", example_out, paper_id(11), "--format", "json").stdout)
    labels = {c["label"] for c in detail["concepts"]}
    assert {"MinHash", "CMinHash", "circulant permutation"} <= labels
    table = kg("paper", example_out, paper_id(11)).stdout
    assert "MinHash" in table and "evidence" in table


def test_extract_jsonl_offsets(tmp_path):
    out = kg("extract", EXAMPLE, "--format", "jsonl").stdout.splitlines()
    from kg.core.readers import read_corpus

    papers = {p.id: p for p in read_corpus([EXAMPLE]).papers}
    assert len(out) == 19
    for line in out:
        rec = json.loads(line)
        ids = {c["id"] for c in rec["concepts"]}
        for m in rec["mentions"]:
            assert papers[rec["id"]].text(m["field"])[m["start"]:m["end"]] == m["text"]
            assert m["concept"] in ids and m["type"]


def test_missing_out_folder_is_one_line(tmp_path):
    proc = kg("papers", tmp_path / "nope", check=False)
    assert proc.returncode == 2
    assert "is not a built graph folder" in proc.stderr and len(proc.stderr.splitlines()) == 1


def test_bad_input_exit_code_and_one_line(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": 1}\n')
    proc = kg("build", bad, "-o", tmp_path / "o", check=False)
    assert proc.returncode == 2
    assert proc.stderr.strip() == f"kg: error: {bad}:line 1: record has no 'abstract'"
    assert not (tmp_path / "o").exists()
