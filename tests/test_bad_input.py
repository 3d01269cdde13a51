"""Bad input is rejected with one line (file, line, what), exit status 2, and OUT untouched.

Every case runs the real ``kg`` command in a subprocess against a copy of a good OUT, then
checks the exact message, the exit code, that no traceback was printed, and that the
previous OUT is byte-identical, its store still opens and no temporary folder is left.
"""

from __future__ import annotations

import json

import pytest

from tests.guard import GOOD_JSONL, assert_intact, kg, leftovers, snapshot

CSV_COLUMNS = ("CSV header must name the columns 'abstract' (and optionally id, title, "
               "keywords, venue, year, url)")

NON_UTF8 = b'{"id": "a", "abstract": "ok"}\n{"id": "b", "abstract": "caf\xe9"}\n'

# name, file content (bytes), expected message after "kg: error: FILE"
CASES = {
    "empty file": ("empty.txt", b"", ": the file is empty"),
    "blank file": ("blank.jsonl", b" \n\n\t\n", ": the file is empty"),
    "header only": ("header.txt", b"NeurIPS 2026 abstracts\n\n\n",
                    ": the file has a header line but no abstracts"),
    "binary": ("figure.txt", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00",
               ": looks like a binary file (contains NUL bytes), not a text corpus"),
    "not utf-8": ("latin1.jsonl", NON_UTF8,
                  f":line 2: not valid UTF-8 text (byte 0xe9 at offset {NON_UTF8.index(0xe9)});"
                  " is this a binary file?"),
    "broken json": ("broken.jsonl", b'{"id": "a", "abstract": "ok"}\n{"id": "b", "abstract": \n',
                    ":line 2: not a JSON object: Expecting value"),
    "json not an object": ("list.jsonl", b'["abstract", "x"]\n',
                           ":line 1: expected a JSON object, got list"),
    "json nested too deeply": ("deep.jsonl", b"[" * 100_000 + b"\n",
                               ":line 1: not a JSON object: nested too deeply"),
    "no abstract": ("noabs.jsonl", b'{"id": "a", "abstract": "ok"}\n\n{"id": "b", "title": "T"}\n',
                    ":line 3: record has no 'abstract'"),
    "empty abstract": ("emptyabs.jsonl", b'{"id": "a", "abstract": " \\n "}\n',
                       ":line 1: record has an empty 'abstract'"),
    "empty abstract csv": ("emptyabs.csv", b"id,abstract\np1,Fine text.\np2,\n",
                           ":line 3: record has an empty 'abstract'"),
    "abstract not text": ("numabs.jsonl", b'{"id": "a", "abstract": 42}\n',
                          ":line 1: field 'abstract' must be a string, got int"),
    "bad year": ("year.jsonl", b'{"id": "a", "abstract": "ok", "year": "soon"}\n',
                 ":line 1: field 'year' must be a year from 1000 to 2999, got 'soon'"),
    "lone surrogate": ("surrogate.jsonl", b'{"id": "a", "abstract": "GNNs \\ud800 here"}\n',
                       ":line 1: field 'abstract' holds half of a UTF-16 surrogate pair "
                       "(U+D800), not text"),
    "duplicate id": ("dup.jsonl",
                     b'{"id": "a", "abstract": "one"}\n{"id": "a", "abstract": "two"}\n',
                     ":line 2: paper id 'a' appears twice with different content "
                     "(first at {f}:line 1)"),
    "csv without abstract column": ("cols.csv", b"id,title\n1,A title\n",
                                    f":line 1: {CSV_COLUMNS}; found 'id', 'title'"),
    "csv with only a header": ("header.csv", b"id,title,abstract\n",
                               ": no abstracts found in the input"),
    "csv extra cells": ("cells.csv", b"id,abstract\np1,Text,extra\n",
                        ":line 2: row has more cells than the header"),
    "year out of range": ("year.jsonl", b'{"id": "a", "abstract": "ok", "year": -5}\n',
                          ":line 1: field 'year' must be a year from 1000 to 2999, got -5"),
    "year true": ("year.jsonl", b'{"id": "a", "abstract": "ok", "year": true}\n',
                  ":line 1: field 'year' must be a year from 1000 to 2999, got True"),
    "csv unterminated quote": ("quote.csv", b'id,abstract\np1,"Opens a quote\np2,Next.\np3,Last.\n',
                               ":line 2: malformed CSV: a quoted field that starts in this "
                               "record is never closed"),
    "csv column twice": ("twice.csv", b"id,abstract,Abstract\np1,One.,Two.\n",
                         ":line 1: the CSV header names the column 'abstract' twice"),
    "json field twice": ("twice.jsonl", b'{"id": "a", "abstract": "One.", "abstract": "Two."}\n',
                         ":line 1: the record names the field 'abstract' twice"),
    "unknown format": ("paper.pdf", b"%PDF-1.4", ": unknown input format '.pdf': use .txt, "
                       ".jsonl/.ndjson or .csv, or name the format with "
                       "--input-format"),
}


@pytest.mark.parametrize("case", CASES)
def test_bad_input_is_one_line_and_out_is_untouched(case, out, tmp_path):
    name, content, message = CASES[case]
    f = tmp_path / name
    f.write_bytes(content)
    before = snapshot(out)
    proc = kg("build", f, "-o", out)
    assert proc.returncode == 2
    assert proc.stderr == f"kg: error: {f}{message.format(f=f)}\n"
    assert proc.stdout == ""
    assert_intact(out, before)


def test_missing_input_file(out, tmp_path):
    before = snapshot(out)
    proc = kg("build", tmp_path / "nope.jsonl", "-o", out)
    assert (proc.returncode, proc.stderr) == (2, f"kg: error: {tmp_path / 'nope.jsonl'}: "
                                                 "no such file\n")
    assert_intact(out, before)


def test_debug_shows_the_traceback_instead(tmp_path):
    f = tmp_path / "empty.txt"
    f.write_bytes(b"")
    proc = kg("--debug", "build", f, "-o", tmp_path / "o")
    assert proc.returncode != 0
    assert "Traceback" in proc.stderr and "InputError" in proc.stderr
    assert not (tmp_path / "o").exists()


def test_the_first_bad_file_stops_the_build_even_after_good_ones(out, tmp_path):
    good = tmp_path / "good.jsonl"
    good.write_text(GOOD_JSONL, encoding="utf-8")
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"")
    before = snapshot(out)
    proc = kg("build", good, bad, "-o", out)
    assert (proc.returncode, proc.stderr) == (2, f"kg: error: {bad}: the file is empty\n")
    assert_intact(out, before)


# -- the output folder itself ----------------------------------------------------------


def test_out_that_is_a_file(tmp_path):
    good = tmp_path / "good.jsonl"
    good.write_text(GOOD_JSONL, encoding="utf-8")
    target = tmp_path / "notes.txt"
    target.write_text("mine")
    proc = kg("build", good, "-o", target)
    assert proc.returncode == 2
    assert proc.stderr == (f"kg: error: {target} is a file; the output must be a folder "
                           "(choose another -o)\n")
    assert target.read_text() == "mine" and leftovers(target) == []


def test_out_under_a_file(tmp_path):
    good = tmp_path / "good.jsonl"
    good.write_text(GOOD_JSONL, encoding="utf-8")
    parent = tmp_path / "notes.txt"
    parent.write_text("mine")
    proc = kg("build", good, "-o", parent / "out")
    assert proc.returncode == 2
    assert proc.stderr == (f"kg: error: cannot write the output {parent / 'out'}: {parent} is a "
                           "file, not a folder\n")
    assert parent.read_text() == "mine"


def test_out_that_is_someone_elses_folder_is_not_replaced(tmp_path):
    """Building into a folder of other files would delete them: refuse instead."""
    good = tmp_path / "good.jsonl"
    good.write_text(GOOD_JSONL, encoding="utf-8")
    proc = kg("build", good, "-o", tmp_path)
    assert proc.returncode == 2
    assert proc.stderr == (f"kg: error: {tmp_path} exists and is not a kg output folder (no "
                           "manifest.json); refusing to replace it: choose another -o or "
                           "remove it\n")
    assert good.read_text(encoding="utf-8") == GOOD_JSONL


def test_empty_existing_folder_is_fine(tmp_path):
    good = tmp_path / "good.jsonl"
    good.write_text(GOOD_JSONL, encoding="utf-8")
    (tmp_path / "o").mkdir()
    kg("build", good, "-o", tmp_path / "o", "-q", check=True)
    assert (tmp_path / "o" / "graph.ttl").exists()


# -- skipping --------------------------------------------------------------------------


@pytest.fixture
def mixed(tmp_path):
    """Three good papers plus four bad records in two files and one unreadable file."""
    f = tmp_path / "mixed.jsonl"
    f.write_text(GOOD_JSONL + '{"id": "b1", "title": "no abstract"}\nnot json\n'
                 '{"id": "g1", "abstract": "A different g1."}\n', encoding="utf-8")
    c = tmp_path / "more.csv"
    c.write_text('id,abstract\nc1,"Contrastive learning for GNNs."\nc2,\n', encoding="utf-8")
    e = tmp_path / "empty.txt"
    e.write_bytes(b"")
    return [f, c, e]


SKIP_REPORT = [
    "kg: skipped 5 bad record(s):",
    "  {d}/mixed.jsonl:line 4: record has no 'abstract'",
    "  {d}/mixed.jsonl:line 5: not a JSON object: Expecting value",
    "  {d}/mixed.jsonl:line 6: paper id 'g1' appears twice with different content "
    "(first at {d}/mixed.jsonl:line 1)",
    "  {d}/more.csv:line 3: record has an empty 'abstract'",
    "  {d}/empty.txt: the file is empty",
]


def test_build_skip_goes_on_and_reports_how_many_and_why(mixed, tmp_path):
    out = tmp_path / "o"
    proc = kg("build", *mixed, "-o", out, "--on-error", "skip")
    assert proc.returncode == 0, proc.stderr
    report = proc.stderr.splitlines()
    assert report[:len(SKIP_REPORT)] == [s.format(d=tmp_path) for s in SKIP_REPORT]
    assert "4 papers" in report[len(SKIP_REPORT)] and proc.stdout == ""
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["counts"]["skipped_records"] == 5
    assert manifest["counts"]["papers"] == 4


def test_extract_skip_goes_on_and_reports_how_many_and_why(mixed, tmp_path):
    proc = kg("extract", *mixed, "--on-error", "skip")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.splitlines() == [s.format(d=tmp_path) for s in SKIP_REPORT]
    assert [json.loads(line)["id"] for line in proc.stdout.splitlines()] == [
        "g1", "g2", "g3", "c1"]


def test_extract_stops_at_the_first_bad_record_by_default(mixed, tmp_path):
    proc = kg("extract", *mixed)
    assert proc.returncode == 2
    assert proc.stderr == f"kg: error: {tmp_path}/mixed.jsonl:line 4: record has no 'abstract'\n"
    assert proc.stdout == ""


def test_skip_with_nothing_left_is_still_an_error(out, tmp_path):
    e = tmp_path / "empty.txt"
    e.write_bytes(b"")
    before = snapshot(out)
    proc = kg("build", e, "-o", out, "--on-error", "skip")
    assert proc.returncode == 2
    assert proc.stderr == (f"kg: error: {e}: no abstracts found in the input (1 skipped; the "
                           f"first: {e}: the file is empty)\n")
    assert_intact(out, before)


def test_same_record_twice_is_not_an_error(tmp_path):
    f = tmp_path / "twice.jsonl"
    f.write_text(GOOD_JSONL + GOOD_JSONL.splitlines(keepends=True)[0], encoding="utf-8")
    proc = kg("build", f, "-o", tmp_path / "o", check=True)
    assert "3 papers" in proc.stderr.splitlines()[0] and proc.stdout == ""


# -- handled, not rejected -------------------------------------------------------------


def _assert_offsets_exact(out):
    model = json.loads((out / "model.json").read_text(encoding="utf-8"))
    papers = {p["id"]: p for p in model["papers"]}
    for m in model["mentions"]:
        assert papers[m["paper"]][m["field"]][m["start"]:m["end"]] == m["text"], m
    return model


def test_a_1mb_abstract_is_read_up_to_the_limit_with_a_warning(tmp_path):
    from kg.core.readers import MAX_TEXT_CHARS

    filler = "lorem ipsum dolor sit amet consectetur. "
    end = "Finally, diffusion models. "
    head = "We use graph neural networks. " + filler * ((MAX_TEXT_CHARS - 2000) // len(filler))
    abstract = head + end + filler * (2**20 // len(filler))
    assert len(abstract.encode("utf-8")) > 2**20
    f = tmp_path / "big.jsonl"
    f.write_text(json.dumps({"id": "big", "abstract": abstract}) + "\n", encoding="utf-8")
    out = tmp_path / "o"
    proc = kg("build", f, "-o", out, "-q", "--no-page")
    assert proc.returncode == 0, proc.stderr[-500:]
    assert proc.stderr == (f"kg: warning: {f}:line 1: the abstract has {len(abstract):,} "
                           f"characters: only its first {MAX_TEXT_CHARS:,} are read (the "
                           "longest text kg reads; see README, Limits)\n")
    model = _assert_offsets_exact(out)
    found = {(m["concept"], m["start"]) for m in model["mentions"]}
    assert ("graph-neural-network", 7) in found
    assert ("diffusion-model", len(head) + len("Finally, ")) in found  # past several chunks
    assert len(model["papers"][0]["abstract"]) <= MAX_TEXT_CHARS


NOISY = [
    {"id": "latex", "title": r"$\ell_1$-regression with \emph{graph neural networks}",
     "abstract": r"We prove an $O(\sqrt{d/n})$ bound for \textbf{graph neural networks} "
                 r"(GNNs) \cite{kipf2017} and diffusion models~\ref{sec:x}. "
                 r"$$\mathcal{L} = \sum_i \|x_i\|^2$$ Reinforcement learning \\ too."},
    {"id": "html", "title": "<b>Diffusion</b> &amp; <i>graph neural networks</i>",
     "abstract": "<p>We study <em>graph neural networks</em> &amp; diffusion models "
                 "&lt;fast&gt;.</p><br/><script>alert(1)</script> Reinforcement learning."},
    {"id": "markdown", "title": "**Diffusion models** for `GNNs`",
     "abstract": "# Intro\n\nWe use **graph neural networks** and _diffusion models_; see "
                 "[the code](https://example.org/x_(y)). \n- reinforcement learning\n"
                 "> quoted `x = y*z`"},
    {"id": "unicode", "title": "Ｇｒａｐｈ neural networks\u2028line and\x85next",
     "abstract": "Graph\u00a0neural networks \u2028 with diffusion models\u2029 and "
                 "e\u0301motion \U0001F600 reinforcement learning. \u200b Ünïcödé "
                 "graph neural networks."},
]


def test_latex_html_markdown_and_unicode_noise_builds_with_exact_offsets(tmp_path):
    f = tmp_path / "noisy.jsonl"
    f.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in NOISY),
                 encoding="utf-8")
    assert "\u2028" in f.read_text(encoding="utf-8")  # raw, as JSON allows
    out = tmp_path / "o"
    kg("build", f, "-o", out, "-q", check=True)
    model = _assert_offsets_exact(out)
    papers = {p["id"]: p for p in model["papers"]}
    assert {pid: (p["title"], p["abstract"]) for pid, p in papers.items()} == {
        r["id"]: (r["title"], r["abstract"]) for r in NOISY}
    by_paper = {}
    for m in model["mentions"]:
        by_paper.setdefault(m["paper"], set()).add(m["concept"])
    # markup does not blind the extractor: every record still yields lexicon concepts
    lexicon = {"reinforcement-learning", "graph-neural-network", "diffusion-model"}
    assert all(by_paper.get(r["id"], set()) & lexicon for r in NOISY), by_paper


def test_extract_offsets_on_noise_are_exact(tmp_path):
    f = tmp_path / "noisy.jsonl"
    f.write_text("".join(json.dumps(r) + "\n" for r in NOISY), encoding="utf-8")
    proc = kg("extract", f, check=True)
    records = {r["id"]: r for r in NOISY}
    for line in proc.stdout.splitlines():
        rec = json.loads(line)
        for m in rec["mentions"]:
            assert records[rec["id"]][m["field"]][m["start"]:m["end"]] == m["text"]
