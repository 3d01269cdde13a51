"""CLI manners: ``-`` for stdin and stdout, OUT defaults to ``kg-out``, data on stdout and
status on stderr, one-line errors with exit status 2, tables that fit a width."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

from tests.conftest import EXAMPLE, NEURIPS2018_SAMPLE, ROOT, paper_id


def kg(*args, cwd=None, stdin: bytes | None = None, check=True):
    proc = subprocess.run([sys.executable, "-m", "kg", *map(str, args)], capture_output=True,
                          input=stdin if stdin is not None else b"", cwd=cwd, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    if check:
        assert proc.returncode == 0, proc.stderr.decode()
    return proc


def text(proc) -> str:
    return proc.stdout.decode("utf-8")


# -- `-` is standard input or standard output ---------------------------------------------

def test_build_reads_stdin_as_plain_text(tmp_path):
    out = tmp_path / "o"
    proc = kg("build", "-", "-o", out, "--no-page", stdin=EXAMPLE.read_bytes())
    assert proc.stdout == b"" and b"19 papers" in proc.stderr
    rows = json.loads(text(kg("papers", out, "--concept", "MinHash", "--format", "json")))
    assert [r["id"] for r in rows] == ["stdin-11"]  # the file's paper 11, named after stdin


def test_extract_reads_stdin_sniffed_or_named(tmp_path):
    jsonl = b"".join(NEURIPS2018_SAMPLE.read_bytes().splitlines(keepends=True)[:3])
    (tmp_path / "three.jsonl").write_bytes(jsonl)
    from_file = kg("extract", tmp_path / "three.jsonl", "--span-model", "none").stdout
    assert kg("extract", "-", "--span-model", "none", stdin=b"\n" + jsonl).stdout == from_file
    assert len(from_file.splitlines()) == 3
    csv = b"id,abstract\np1,We study MinHash for graph neural networks (GNNs).\n"
    rows = [json.loads(line) for line in kg("extract", "-", "--input-format", "csv",
                                            "--span-model", "none", stdin=csv).stdout.splitlines()]
    assert rows[0]["id"] == "p1" and "MinHash" in {m["text"] for m in rows[0]["mentions"]}
    # a file of another suffix, named
    (tmp_path / "abstracts.data").write_bytes(csv)
    assert kg("extract", tmp_path / "abstracts.data", "--input-format", "csv",
              "--span-model", "none").stdout == kg("extract", "-", "--input-format", "csv",
                                                   "--span-model", "none", stdin=csv).stdout


def test_export_and_viz_write_stdout(example_out, tmp_path):
    default = kg("export", example_out, "--format", "ntriples", cwd=tmp_path).stdout
    dash = kg("export", example_out, "--format", "ntriples", "-o", "-", cwd=tmp_path)
    assert dash.stdout == default and len(default) > 1000 and dash.stderr == b""
    page = kg("viz", example_out, "--view", "concepts", "-o", "-", cwd=tmp_path)
    assert page.stdout.startswith(b"<!DOCTYPE html>") and page.stdout.rstrip().endswith(b"</html>")
    assert page.stderr.decode().startswith("wrote the concepts page to standard output")
    assert not (tmp_path / "-").exists()


def test_status_goes_to_stderr_and_data_to_stdout(example_out, tmp_path):
    proc = kg("viz", example_out, "--view", "concepts", "-o", tmp_path / "c.html")
    assert proc.stdout == b"" and proc.stderr.decode().startswith(f"wrote {tmp_path / 'c.html'}")
    proc = kg("export", example_out, "--format", "turtle", "-o", tmp_path / "g.ttl")
    assert proc.stdout == b"" and b"wrote" in proc.stderr


# -- OUT defaults to kg-out -----------------------------------------------------------------

SAME_WITHOUT_OUT = [
    ("papers", "--concept", "GNNs"),
    ("papers",),
    ("concepts", "--type", "dataset"),
    ("paper", paper_id(11)),
    ("related", paper_id(3)),
    ("cooccur", "GNNs"),
    ("path", "calibration", "LLMs"),
    ("stats",),
    ("bridge", "graph neural networks", "large language models"),
    ("sparql", "SELECT ?l WHERE { ?c skos:prefLabel ?l } ORDER BY ?l LIMIT 3"),
    ("sparql", "--file", "q.rq"),
    ("export", "--format", "ntriples"),
]


@pytest.fixture(scope="module")
def here(example_out, tmp_path_factory):
    """A folder holding a copy of the example build as ``kg-out``, and a query file."""
    cwd = tmp_path_factory.mktemp("cwd")
    shutil.copytree(example_out, cwd / "kg-out")
    (cwd / "q.rq").write_text("ASK { ?c skos:prefLabel 'MinHash'@en }\n", encoding="utf-8")
    return cwd


@pytest.mark.parametrize("args", SAME_WITHOUT_OUT, ids=lambda a: " ".join(a))
def test_out_may_be_left_out(here, args):
    command, *rest = args
    fmt = [] if command in ("sparql", "export") else ["--format", "json"]
    without = kg(command, *rest, *fmt, cwd=here)
    assert without.stdout and without.stdout == kg(command, "kg-out", *rest, *fmt, cwd=here).stdout


def test_out_left_out_is_kg_out_also_for_pages_and_missing_arguments(here, tmp_path):
    proc = kg("viz", "--focus", "GNNs", "-o", tmp_path / "f.html", cwd=here)
    assert (tmp_path / "f.html").exists() and b"nodes" in proc.stderr
    proc = kg("paper", cwd=here, check=False)
    assert proc.returncode == 2
    assert proc.stderr.decode() == "kg: error: missing argument 'ID' (see 'kg paper --help')\n"
    proc = kg("path", "calibration", cwd=here, check=False)
    assert b"missing argument 'CONCEPT_B'" in proc.stderr
    proc = kg("papers", cwd=tmp_path, check=False)  # no kg-out here
    assert proc.stderr.decode().startswith("kg: error: kg-out is not a built graph folder")


# -- tables fit a width ---------------------------------------------------------------------

def test_tables_fit_the_width_asked_and_full_keeps_every_cell_on_one_line(example_out):
    rows = json.loads(text(kg("papers", example_out, "--format", "json")))
    for width in (64, 100):
        lines = text(kg("papers", example_out, "--width", width)).splitlines()
        assert max(len(line) for line in lines) <= width
        assert {r["id"] for r in rows} <= {line.split()[0] for line in lines[2:] if line[0] != " "}
    full = text(kg("papers", example_out, "--full")).splitlines()
    assert len(full) == len(rows) + 2  # header, rule, one line per row
    assert all(r["title"] in "\n".join(full) for r in rows)
    # not a terminal and no --width: nothing is wrapped either
    assert text(kg("papers", example_out)).splitlines() == full
    # evidence sentences too, in SPARQL tables as well
    paper = text(kg("paper", example_out, paper_id(11), "--width", 70)).splitlines()
    assert max(len(line) for line in paper) <= 70
    q = "SELECT ?l ?d WHERE { ?c skos:prefLabel ?l ; skos:definition ?d } LIMIT 3"
    assert max(len(line) for line in text(kg("sparql", example_out, q, "--width", 40))
               .splitlines()) <= 40


# -- every error: one line, exit status 2 -----------------------------------------------------

BAD = [
    ("unknown option", ("papers", "{out}", "--bogus"), "no such option '--bogus'"),
    ("unknown command", ("bogus",), "no such command 'bogus'"),
    ("group option", ("--bogus",), "no such option '--bogus'"),
    ("missing argument", ("cooccur",), "missing argument 'CONCEPT'"),
    ("bad choice", ("papers", "{out}", "--format", "xml"), "invalid value for '--format'"),
    ("narrow width", ("papers", "{out}", "--width", "5"), "invalid value for '--width'"),
    ("OUT not built", ("stats", "{tmp}"), "is not a built graph folder"),
    ("OUT missing", ("papers", "{tmp}/nowhere"), "is not a built graph folder"),
    ("no such input", ("build", "{tmp}/none.txt", "-o", "{tmp}/o"), "none.txt: no such file"),
    ("empty stdin", ("extract", "-"), "stdin: the file is empty"),
    ("unknown suffix", ("build", "{tmp}/x.pdf", "-o", "{tmp}/o"), "unknown input format '.pdf'"),
    ("bad input format", ("build", "-", "--input-format", "xml"),
     "invalid value for '--input-format'"),
    ("export into a missing folder", ("export", "{out}", "-o", "{tmp}/no/such/dir/g.ttl"),
     "No such file or directory"),
    ("viz under a file", ("viz", "{out}", "-o", "{tmp}/x.pdf/g.html"), "x.pdf"),
    ("query file missing", ("sparql", "{out}", "--file", "{tmp}/none.rq"),
     "invalid value for '--file'"),
    ("no query", ("sparql", "{out}", "--file", "{tmp}/q.rq", "SELECT"),
     "give a query or --file, not both"),
    ("bad SPARQL", ("sparql", "{out}", "SELEC ?x"), "SPARQL syntax error"),
    ("no SPARQL at all", ("sparql",), "give a query (or --file FILE)"),
    ("unknown paper", ("paper", "{out}", "no-such-paper"), "no paper with id 'no-such-paper'"),
    ("unknown concept", ("cooccur", "{out}", "no such concept"), "no concept matches"),
    ("view needs focus", ("viz", "{out}", "--view", "focus"), "--view focus needs --focus"),
    ("bad --param", ("cypher", "RETURN 1", "--param", "x"), "--param expects NAME=VALUE"),
    ("push without a server", ("push", "{out}"), "no Bolt server given"),
    ("nothing served", ("serve", "{out}", "--stop"), "no local Bolt server is serving"),
    ("bad port", ("serve", "{out}", "--port", "0"), "invalid value for '--port'"),
    ("eval file missing", ("eval", "scierc", "{tmp}/dev.jsonl"), "invalid value for 'PATH'"),
    ("eval subcommand", ("eval", "bogus"), "no such command 'bogus'"),
    ("bad push-sparql endpoint", ("push-sparql", "{out}", "--endpoint", "not a url"),
     "not a url"),
]


@pytest.mark.parametrize("args, expected", [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_every_error_is_one_line_with_exit_status_2(example_out, tmp_path, args, expected):
    (tmp_path / "x.pdf").write_bytes(b"%PDF-1.4")
    (tmp_path / "q.rq").write_text("ASK {}", encoding="utf-8")
    env_free = {k: v for k, v in os.environ.items() if not k.startswith("NEO4J_")}
    proc = subprocess.run(
        [sys.executable, "-m", "kg", *(a.format(out=example_out, tmp=tmp_path) for a in args)],
        capture_output=True, text=True, input="", timeout=300, cwd=tmp_path,
        env={**env_free, "PYTHONPATH": str(ROOT)})
    lines = proc.stderr.splitlines()
    assert proc.returncode == 2, proc.stderr
    assert len(lines) == 1 and lines[0].startswith("kg: error: "), proc.stderr
    assert expected in lines[0]
    assert proc.stdout == ""
