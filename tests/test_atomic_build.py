"""Nothing is lost: a failed, interrupted or killed build leaves the previous OUT intact.

The interruption tests run the real ``kg build`` in a child process with one stage wrapped
so that it announces itself on stdout; the test then sends a real SIGINT or SIGTERM, so
the signal lands in a known stage without any timing guesswork.
"""

from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import sys
import textwrap

import pytest

from kg.build import _clean_leftovers, _signals_held, _swap_in, build
from kg.core.errors import OutputError
from tests.conftest import NEURIPS2018_SAMPLE
from tests.guard import GOOD_JSONL, ROOT, assert_intact, copy_out, kg, leftovers, snapshot

# Runs `kg ARGS…` with one function wrapped: argv[1] is "module:function:N:when". At the
# N-th call it prints REACHED, either "before" the call (which then goes on, so a signal
# lands while it runs) or "after" it (then waits there to be interrupted or killed).
CHILD = textwrap.dedent("""
    import importlib, sys, time

    module, name, n, when = sys.argv[1].split(":")
    mod = importlib.import_module(module)
    real = getattr(mod, name)
    calls = []

    def wrapped(*args, **kwargs):
        calls.append(1)
        reached = len(calls) == int(n)
        if reached and when == "before":
            print("REACHED", flush=True)
        result = real(*args, **kwargs)
        if reached and when == "after":
            print("REACHED", flush=True)
            time.sleep(600)
        return result

    setattr(mod, name, wrapped)
    sys.argv = ["kg", *sys.argv[2:]]
    from kg.cli import main
    main()
""")
EXTRACT = "extractors.pipeline:extract_corpus:1:before"
WRITE = "kg.build:write_rdf:1:after"


def _interrupt(stage: str, sig: int, *args: object) -> subprocess.CompletedProcess:
    """Run ``kg ARGS`` in a child, send ``sig`` once it reaches ``stage``, wait for it."""
    child = subprocess.Popen([sys.executable, "-c", CHILD, stage, *map(str, args)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             cwd=ROOT)
    try:
        first = child.stdout.readline()
        assert first == "REACHED\n", first or child.stderr.read()
        child.send_signal(sig)
        stdout, stderr = child.communicate(timeout=300)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    return subprocess.CompletedProcess(child.args, child.returncode, first + stdout, stderr)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_interrupt_while_writing_leaves_previous_out(out, sig):
    before = snapshot(out)
    example = ROOT / "examples" / "neurips2026-abstracts.txt"
    proc = _interrupt(WRITE, sig, "build", example, "-o", out, "-q")
    assert proc.returncode == 130
    assert proc.stderr == "kg: interrupted; nothing was changed\n"
    assert_intact(out, before)
    # and it still answers questions
    rows = json.loads(kg("papers", out, "--concept", "GNNs", "--format", "json",
                         check=True).stdout)
    assert [r["id"] for r in rows] == ["g1", "g2"]


def test_interrupt_during_extraction_of_a_real_corpus(out):
    corpus = NEURIPS2018_SAMPLE
    before = snapshot(out)
    proc = _interrupt(EXTRACT, signal.SIGTERM, "build", corpus, "-o", out, "-q")
    assert proc.returncode == 130
    assert proc.stderr == "kg: interrupted; nothing was changed\n"
    assert_intact(out, before)


def test_first_build_interrupted_leaves_nothing(tmp_path):
    out = tmp_path / "fresh"
    example = ROOT / "examples" / "neurips2026-abstracts.txt"
    proc = _interrupt(WRITE, signal.SIGTERM, "build", example, "-o", out, "-q")
    assert proc.returncode == 130
    assert not out.exists() and leftovers(out) == []


def test_failing_stage_reports_one_line_and_keeps_out(out, monkeypatch, tmp_path):
    """A full disk while writing the page: one clear line, OUT untouched, temp folder gone."""
    import visualizations.views

    def full_disk(graph, path):
        path.write_text("half a page")
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))

    monkeypatch.setattr(visualizations.views, "default_page", full_disk)
    src = tmp_path / "good.jsonl"
    src.write_text(GOOD_JSONL, encoding="utf-8")
    before = snapshot(out)
    with pytest.raises(OutputError) as e:
        build([src], out)
    assert str(e.value).startswith(f"cannot write the output {out}: No space left on device (")
    assert_intact(out, before)


def test_unexpected_failure_keeps_out_and_cleans_up(out, monkeypatch, tmp_path):
    import kg.build as kb

    def broken(*args, **kwargs):
        raise RuntimeError("a bug")

    monkeypatch.setattr(kb, "write_manifest", broken)
    src = tmp_path / "good.jsonl"
    src.write_text(GOOD_JSONL, encoding="utf-8")
    before = snapshot(out)
    with pytest.raises(RuntimeError, match="a bug"):
        build([src], out)
    assert_intact(out, before)


def test_the_inputs_are_read_in_the_extraction_process_not_the_builds_own(monkeypatch,
                                                                          tmp_path):
    """The build's own process only streams the model to its files: holding the papers
    besides (~3 KB each) was the largest thing it held while extraction ran, and a second
    copy of every page the extraction process touched. What reading skipped still comes
    back with the result."""
    import kg.build as kb

    real, readers = kb.read_corpus, tmp_path / "readers"

    def read_corpus(*args, **kwargs):
        with open(readers, "a") as f:
            f.write(f"{os.getpid()}\n")
        return real(*args, **kwargs)

    monkeypatch.setattr(kb, "read_corpus", read_corpus)
    src = tmp_path / "some-bad.jsonl"
    src.write_text(GOOD_JSONL + "{not json\n", encoding="utf-8")
    result = build([src], tmp_path / "out", on_error="skip", workers=1, page=False)
    pids = [int(x) for x in readers.read_text().split()]
    assert len(pids) == 1 and pids[0] != os.getpid()
    assert result.summary()["papers"] == 3
    [skipped] = result.report.skipped
    assert (skipped.path, skipped.where) == (str(src), "line 4")
    assert str(skipped).startswith(f"{src}:line 4: not a JSON object")
    assert not list((tmp_path / "out").glob(".*.pickle"))


def test_bad_input_leaves_no_folder_made_for_out(tmp_path):
    """Read in the extraction process, a bad record is found once OUT's parent folders and
    the temporary folder are made: they go again, and the error is the reader's line."""
    src = tmp_path / "bad.jsonl"
    src.write_text(GOOD_JSONL + "{not json\n", encoding="utf-8")
    proc = kg("build", src, "-o", tmp_path / "new" / "deeper" / "out", "-q")
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        f"kg: error: {src}:line 4: not a JSON object: Expecting property name enclosed in "
        "double quotes"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.jsonl"]


def test_failed_swap_puts_the_old_out_back(out, tmp_path):
    before = snapshot(out)
    with pytest.raises(FileNotFoundError):
        _swap_in(tmp_path / "never-written", out)
    assert_intact(out, before)


def test_signals_during_the_swap_are_held_until_it_is_done():
    before = signal.getsignal(signal.SIGINT)
    with _signals_held() as caught:
        signal.raise_signal(signal.SIGINT)  # would raise KeyboardInterrupt here otherwise
        signal.raise_signal(signal.SIGTERM)
        assert caught == [signal.SIGINT, signal.SIGTERM]
    assert signal.getsignal(signal.SIGINT) is before


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_leftovers_of_killed_builds_are_cleaned_live_ones_kept(out, tmp_path):
    dead = _dead_pid()
    stale_tmp = tmp_path / f".out.tmp-{dead}-abc123"
    stale_old = tmp_path / f".out.old-{dead}"
    live = tmp_path / f".out.tmp-{os.getppid()}-running"  # another build still at work
    for d in (stale_tmp, stale_old, live):
        d.mkdir()
        (d / "graph.ttl").write_text("partial")
    src = tmp_path / "good.jsonl"
    src.write_text(GOOD_JSONL, encoding="utf-8")
    build([src], out)
    assert leftovers(out) == [live.name]


def test_out_moved_aside_by_a_killed_build_comes_back(good_out, tmp_path):
    """Killed between the two renames, OUT is missing and ``.OUT.old-PID`` holds it.

    The next build into OUT starts by putting it back (and then replaces it as usual).
    """
    aside = copy_out(good_out, tmp_path / f".out.old-{_dead_pid()}")
    before = snapshot(aside)
    out = tmp_path / "out"
    _clean_leftovers(out)
    assert_intact(out, before)


# -- pushes killed midway, then run again ----------------------------------------------


def test_bolt_push_killed_midway_then_rerun_ends_like_a_clean_push(bolt, example_out,
                                                                   example_kg):
    from kg.stores.bolt import counts

    clean = counts(bolt.load(example_kg))
    bolt.forget()  # the database is about to change behind the fixture's back
    args = ["push", example_out, *bolt.cli_args(), "--batch-size", "10", "-q"]
    proc = _interrupt("kg.stores.bolt:_write:3:after", signal.SIGKILL, *args, "--replace")
    assert proc.returncode == -signal.SIGKILL
    with bolt.connect() as g:
        partial = counts(g)
        assert partial != clean  # really cut short
        kg(*args, check=True)
        assert counts(g) == clean


def test_sparql_push_killed_midway_then_rerun_ends_like_a_clean_push(virtuoso, example_out,
                                                                     example_build):
    graph = "http://example.org/killed"
    args = ["push-sparql", example_out, "--endpoint", virtuoso.update_url, "--method",
            "update", "--graph", graph, "--user", virtuoso.user, "--password",
            virtuoso.password]
    count = f"SELECT (COUNT(*) AS ?n) WHERE {{ GRAPH <{graph}> {{ ?s ?p ?o }} }}"
    proc = _interrupt("kg.stores.sparql_push:_send:3:after", signal.SIGKILL, *args)
    assert proc.returncode == -signal.SIGKILL
    partial = int(virtuoso.select(count)[0]["n"])
    assert 0 < partial < example_build.triples  # really cut short
    kg(*args, check=True)
    assert int(virtuoso.select(count)[0]["n"]) == example_build.triples
