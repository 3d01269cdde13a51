"""Faults on the build side: dying workers, huge abstracts, lying caches, hostile inputs.

Every test here reproduces a failure of issue 18 that the code before it did not survive.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.conftest import EXAMPLE
from tests.guard import ROOT, assert_intact, snapshot


def _replicated_corpus(path: Path, copies: int) -> Path:
    """The example abstracts ``copies`` times over, with ids of their own (JSON Lines)."""
    paras = EXAMPLE.read_text(encoding="utf-8").split("\n\n")[1:]
    abstracts = [" ".join(p.split()) for p in paras if p.strip()]
    with path.open("w", encoding="utf-8") as f:
        for k in range(copies):
            for n, a in enumerate(abstracts):
                f.write(json.dumps({"id": f"p{k}-{n}", "title": f"Paper {k} {n}",
                                    "abstract": a}) + "\n")
    return path


def _children(pid: int) -> list[int]:
    children = []  # a cluster's thread starts its workers: the children of every thread
    for task in Path(f"/proc/{pid}/task").glob("*"):
        with contextlib.suppress(OSError):
            children += (task / "children").read_text().split()
    return [int(c) for c in children]


def _dask_workers(pid: int) -> list[int]:
    """The worker processes of the local Dask cluster of the build ``pid``: the children
    of its extraction process, itself a child of the build (``run_apart``)."""
    out = []
    for extraction in _children(pid):
        for c in _children(extraction):  # forked or spawned, not the tracker
            with contextlib.suppress(OSError):
                if b"resource_tracker" not in Path(f"/proc/{c}/cmdline").read_bytes():
                    out.append(c)
    return out


def _build_with_workers(corpus: Path, out: Path, **popen) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "kg", "build", corpus, "-o", out, "-q",
                             "--workers", "2"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, cwd=ROOT, **popen)


def _wait_for_workers(build: subprocess.Popen) -> list[int]:
    """The two workers, once they have run for three seconds (the cluster is up)."""
    while build.poll() is None:
        workers = _dask_workers(build.pid)
        if len(workers) == 2:
            time.sleep(3)
            if sorted(_dask_workers(build.pid)) == sorted(workers):
                return workers
        time.sleep(0.05)
    raise AssertionError(f"the build never started its two Dask workers: {build.stderr.read()}")


def _cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of the process ``pid`` so far (0 once it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _wait_for_extraction(build: subprocess.Popen, workers: list[int]) -> None:
    """Until a worker has computed for a second (more than starting takes): a Ctrl-C now
    comes during extraction, not while the cluster starts (the test after this one)."""
    start = {w: _cpu_seconds(w) for w in workers}
    while build.poll() is None:
        time.sleep(0.1)
        if any(_cpu_seconds(w) - start[w] >= 1.0 for w in workers):
            return
    raise AssertionError(f"the build ended before its workers computed: {build.stderr.read()}")


def test_a_killed_extraction_worker_fails_the_build_instead_of_hanging(out, tmp_path):
    corpus = _replicated_corpus(tmp_path / "big.jsonl", 40)  # 760 papers, 24 tasks
    before = snapshot(out)
    build = _build_with_workers(corpus, out)
    try:
        _wait_for_workers(build)
        # a worker killed between two tasks is replaced and the build goes on: kill them
        # until one dies in the middle of a task (the first, most of the time)
        while build.poll() is None:
            for w in _dask_workers(build.pid):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(w, signal.SIGKILL)
            time.sleep(0.5)
        # a hang guard, not a speed test: a lost task must not be waited for forever
        stdout, stderr = build.communicate(timeout=300)
    finally:
        if build.poll() is None:
            build.kill()
            build.wait()
    assert build.returncode == 2, stderr
    assert stderr.count("\n") == 1, stderr
    assert re.fullmatch(r"kg: error: extraction stopped: "
                        r"(worker tcp://127\.0\.0\.1:\d+|a worker) died "
                        r"\(killed, or out of memory\?\); nothing was written\n", stderr), stderr
    assert_intact(out, before)


def _die_on_two(shared: int, n: int) -> int:
    if n == 2:
        os.kill(os.getpid(), signal.SIGKILL)
    return n + shared


def test_every_worker_pool_fails_fast_when_a_worker_dies():
    """Extraction and propagation share :class:`Workers`: a dead worker is an error, not a
    retry on the next worker (which would die too) nor a hang."""
    from extractors.workers import Workers
    from kg.core.errors import WorkerError

    with Workers(2) as workers, pytest.raises(
            WorkerError, match=r"^term propagation stopped: worker tcp://127\.0\.0\.1:\d+ died "
                               r"\(killed, or out of memory\?\); nothing was written$"):
        list(workers.map(_die_on_two, 10, range(6), what="term propagation"))


def _pid_plus(shared: int, n: int) -> tuple[int, int]:
    return os.getpid(), n + shared


def test_workers_closed_early_end_and_what_follows_runs_here():
    """A build ends its local workers once extraction no longer needs them (their memory
    goes back before propagation): the processes are gone, later tasks run in this process,
    and closing again (at the end of the ``with``) is harmless."""
    from extractors.workers import Workers
    from kg.core.processes import pid_alive

    with Workers(2) as workers:
        ran_on = {pid for pid, _ in workers.map(_pid_plus, 0, range(8), what="a test")}
        workers.close()
        later = list(workers.map(_pid_plus, 1, range(3), what="a test"))
        assert not workers.parallel
    assert os.getpid() not in ran_on
    assert later == [(os.getpid(), 1), (os.getpid(), 2), (os.getpid(), 3)]
    deadline = time.monotonic() + 10
    while any(pid_alive(p) for p in ran_on) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(pid_alive(p) for p in ran_on)


def _first_worker(build: subprocess.Popen) -> list[int]:
    """As soon as a worker process exists (the cluster is still starting)."""
    while not (workers := _dask_workers(build.pid)):
        assert build.poll() is None, build.stderr.read()
        time.sleep(0.01)
    return workers


def _extracting(build: subprocess.Popen) -> list[int]:
    """Once a worker has computed for a second (extraction is under way)."""
    workers = _wait_for_workers(build)
    _wait_for_extraction(build, workers)
    return workers


def _ctrl_c_at(when, out: Path, tmp_path: Path) -> None:
    """A build of workers gets Ctrl-C at ``when`` (returns its workers); it must stop with
    130, its workers gone and ``out`` as it was."""
    corpus = _replicated_corpus(tmp_path / "big.jsonl", 40)
    before = snapshot(out)
    build = _build_with_workers(corpus, out, start_new_session=True)
    try:
        workers = when(build)
        os.killpg(build.pid, signal.SIGINT)  # Ctrl-C reaches the whole foreground group
        stdout, stderr = build.communicate(timeout=120)
    finally:
        if build.poll() is None:
            build.kill()
            build.wait()
    assert build.returncode == 130, stderr
    assert stderr == "kg: interrupted; nothing was changed\n"
    assert not any(Path(f"/proc/{w}").exists() for w in workers)
    assert_intact(out, before)


def test_ctrl_c_stops_a_build_in_its_workers(out, tmp_path):
    _ctrl_c_at(_extracting, out, tmp_path)


def test_ctrl_c_while_the_workers_start_is_not_lost(out, tmp_path):
    """Sent as soon as a worker process exists, the Ctrl-C comes while the cluster starts
    (SIGINT ignored then, for the workers' sake); it was lost there and the build ran on."""
    _ctrl_c_at(_first_worker, out, tmp_path)


def test_an_unreachable_scheduler_is_one_line(out, tmp_path):
    from kg.core.processes import free_port
    from tests.guard import GOOD_JSONL, kg

    src = tmp_path / "good.jsonl"
    src.write_text(GOOD_JSONL, encoding="utf-8")
    before = snapshot(out)
    address = f"tcp://127.0.0.1:{free_port()}"  # nothing listens there
    proc = kg("build", src, "-o", out, "--scheduler", address,
              env={"DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT": "2s"})
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1, proc.stderr
    assert proc.stderr.startswith(f"kg: error: cannot reach the Dask scheduler {address}: ")
    assert_intact(out, before)


# -- one huge abstract ------------------------------------------------------------------


def test_a_text_over_the_limit_is_cut_with_a_warning_naming_file_and_record(tmp_path,
                                                                           monkeypatch):
    import kg.core.readers as readers

    monkeypatch.setattr(readers, "MAX_TEXT_CHARS", 1000)
    src = tmp_path / "long.jsonl"
    long = " ".join(["graph neural networks"] * 100)  # 2,199 characters
    src.write_text(json.dumps({"id": "ok", "abstract": "Short."}) + "\n"
                   + json.dumps({"id": "big", "title": "Big", "abstract": long}) + "\n",
                   encoding="utf-8")
    report = readers.read_corpus([src])
    big = next(p for p in report.papers if p.id == "big")
    assert len(big.abstract) <= 1000 and long.startswith(big.abstract)
    assert long[len(big.abstract)] == " "  # cut after a word
    assert [str(w) for w in report.warnings] == [
        f"{src}:line 2: the abstract has 2,199 characters: only its first 1,000 are read "
        "(the longest text kg reads; see README, Limits)"]


def _spans(draw_list):
    return [(s, s + n) for s, n in draw_list]


_SPAN_LISTS = st.lists(st.tuples(st.integers(0, 40), st.integers(1, 8)), max_size=25)


@given(_SPAN_LISTS, _SPAN_LISTS)
def test_interval_queries_agree_with_pairwise_comparison(fixed, asked):
    """The O(log n) questions consolidation asks give the answers of the old pairwise loops."""
    from extractors.consolidate import _crosses, _overlaps
    from extractors.intervals import Intervals

    spans = _spans(fixed)
    index = Intervals(spans)
    for q in _spans(asked):
        assert index.contains(*q) == any(b[0] <= q[0] and q[1] <= b[1] for b in spans)
        assert index.overlaps(*q) == any(_overlaps(q, b) for b in spans)
        assert index.crosses(*q) == any(_crosses(q, b) for b in spans)


@given(_SPAN_LISTS, _SPAN_LISTS, st.booleans())
def test_propagation_takes_the_matches_the_pairwise_loop_took(mentions, matches, crossing_only):
    from extractors.consolidate import _crosses, _overlaps, _Taken

    fixed = _spans(mentions)
    taken, old = list(fixed), []
    new_taken, new = _Taken(fixed, crossing_only), []
    for a, b in sorted(set(_spans(matches))):
        test = _crosses if crossing_only else _overlaps
        if not any(test((a, b), t) or (a, b) == t for t in taken):
            taken.append((a, b))
            old.append((a, b))
        if not new_taken.blocks(a, b):
            new_taken.add(a, b)
            new.append((a, b))
    assert new == old


_KEY_WORDS = st.sampled_from([
    "network", "netwrok", "learning", "learnign", "clustering", "clusterng", "clusteirng",
    "hierarchical", "hierarchial", "data", "set", "dataset", "ab", "abc", "cdef", "def",
    "cifar", "10", "100"])


@given(st.lists(st.lists(_KEY_WORDS, min_size=1, max_size=3).map(" ".join), min_size=10,
                max_size=60, unique=True), st.lists(st.integers(1, 4), min_size=60,
                                                    max_size=60), st.integers(0, 5))
def test_near_duplicate_search_merges_as_a_scan_of_the_whole_bucket(keys, counts, known):
    """The blocked search finds, for every key, the first near-duplicate that scanning its
    whole bucket in order finds (the quadratic search it replaced)."""
    from types import SimpleNamespace

    from extractors.consolidate import canonical_keys
    from kg.core.text import near_duplicate

    registry = SimpleNamespace(by_key=dict.fromkeys(keys[:known], "c"))
    new = {k: n for k, n in zip(keys[known:], counts, strict=False)}
    buckets: dict[tuple[int, str], list[str]] = {}
    for k in registry.by_key:
        buckets.setdefault((len(k.split()), k[:3]), []).append(k)
    scanned: dict[str, str] = {}
    for key in sorted(new, key=lambda k: (-new[k], k)):
        if len(key) < 6:
            continue
        bucket = buckets.setdefault((len(key.split()), key[:3]), [])
        match = next((k for k in bucket if near_duplicate(key, k)), None)
        if match:
            scanned[key] = scanned.get(match, match)
        else:
            bucket.append(key)
    assert canonical_keys(new, registry) == scanned


# -- inputs that cannot be opened -------------------------------------------------------


def _unreadable(kind: str, tmp_path: Path) -> tuple[Path, str]:
    """An input of ``kind`` that cannot be read, and the reason ``kg`` gives."""
    if kind == "symlink loop":
        a, b = tmp_path / "loop-a.jsonl", tmp_path / "loop-b.jsonl"
        a.symlink_to(b)
        b.symlink_to(a)
        return a, "Too many levels of symbolic links"
    if kind == "name too long":
        return tmp_path / ("a" * 300 + ".jsonl"), "File name too long"
    if os.geteuid() != 0:
        f = tmp_path / "secret.jsonl"
        f.write_text('{"abstract": "x"}\n')
        f.chmod(0)
        return f, "Permission denied"
    # root reads any file; this one refuses even root
    target = Path("/proc/sys/vm/compact_memory")
    if not target.exists():
        pytest.skip("running as root without /proc/sys/vm/compact_memory")
    f = tmp_path / "secret.jsonl"
    f.symlink_to(target)
    return f, "Permission denied"


UNREADABLE = ["symlink loop", "name too long", "permission denied"]


@pytest.mark.parametrize("kind", UNREADABLE)
def test_an_unreadable_input_is_one_line(kind, out, tmp_path):
    from tests.guard import kg

    bad, reason = _unreadable(kind, tmp_path)
    before = snapshot(out)
    proc = kg("build", bad, "-o", out)
    assert proc.returncode == 2
    assert proc.stderr == f"kg: error: {bad}: cannot read the file: {reason}\n"
    assert_intact(out, before)


@pytest.mark.parametrize("kind", UNREADABLE)
def test_on_error_skip_skips_an_unreadable_input_with_a_warning(kind, tmp_path):
    from tests.guard import GOOD_JSONL, kg

    bad, reason = _unreadable(kind, tmp_path)
    good = tmp_path / "good.jsonl"
    good.write_text(GOOD_JSONL, encoding="utf-8")
    proc = kg("build", bad, good, "-o", tmp_path / "out", "--on-error", "skip", "-q")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == (f"kg: skipped 1 bad record(s):\n"
                           f"  {bad}: cannot read the file: {reason}\n")
    assert json.loads((tmp_path / "out" / "manifest.json").read_text())["counts"]["papers"] == 3


# -- user lexicons ----------------------------------------------------------------------

LEXICON_HEAD = """@prefix skos: <http://www.w3.org/2004/02/skos/core#> .
@prefix kgv: <https://w3id.org/kg-abstracts/vocab#> .
@prefix c: <https://w3id.org/kg-abstracts/concept/> .
"""
BAD_LEXICONS = {
    "empty label": ('c:nothing a skos:Concept ; skos:prefLabel "" .',
                    "concept nothing has the skos:prefLabel '', which has no letter or digit "
                    "(it would match any word)"),
    "punctuation alias": ('c:gnn2 skos:prefLabel "graph nets" ; skos:altLabel " - " .',
                          "concept gnn2 has the skos:altLabel ' - ', which has no letter or "
                          "digit (it would match any word)"),
    "foreign IRI": ('<http://example.org/gnn> a skos:Concept ; skos:prefLabel "graph nets" .',
                    "concept http://example.org/gnn is not under "
                    "https://w3id.org/kg-abstracts/concept/: kg would ignore it (name concepts "
                    "https://w3id.org/kg-abstracts/concept/ID)"),
    "no label": ('c:unnamed a skos:Concept ; skos:altLabel "unnamed thing" .',
                 "concept unnamed has no skos:prefLabel"),
}


@pytest.mark.parametrize("case", BAD_LEXICONS)
def test_a_user_lexicon_concept_kg_would_drop_or_match_everywhere_is_an_error(case, out,
                                                                              tmp_path):
    from tests.guard import GOOD_JSONL, kg

    body, reason = BAD_LEXICONS[case]
    lexicon = tmp_path / "mine.ttl"
    lexicon.write_text(LEXICON_HEAD + body + "\n", encoding="utf-8")
    src = tmp_path / "good.jsonl"
    src.write_text(GOOD_JSONL, encoding="utf-8")
    before = snapshot(out)
    proc = kg("build", src, "-o", out, "--lexicon", lexicon)
    assert proc.returncode == 2
    assert proc.stderr == f"kg: error: lexicon {lexicon}: {reason}\n"
    assert_intact(out, before)


# -- where the output goes and what it says about the input ------------------------------


def test_out_given_as_a_symlink_builds_into_its_folder_and_keeps_the_link(good_out, tmp_path):
    from tests.guard import GOOD_JSONL, copy_out, kg

    real = copy_out(good_out, tmp_path / "real")
    link = tmp_path / "link"
    link.symlink_to(real)
    src = tmp_path / "good.jsonl"
    src.write_text(GOOD_JSONL.replace("Differential privacy", "Federated learning"),
                   encoding="utf-8")
    proc = kg("build", src, "-o", link, "-q")
    assert proc.returncode == 0, proc.stderr
    assert link.is_symlink() and link.resolve() == real.resolve()
    assert b"Federated learning" in (real / "model.json").read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["good.jsonl", "link", "real"]


def test_the_same_file_named_two_ways_gives_the_same_model(tmp_path):
    from tests.guard import kg

    relative = "examples/neurips2026-abstracts.txt"
    kg("build", relative, "-o", tmp_path / "a", "-q", "--no-page", check=True)
    kg("build", ROOT / relative, "-o", tmp_path / "b", "-q", "--no-page", check=True)
    model = (tmp_path / "a" / "model.json").read_bytes()
    assert model == (tmp_path / "b" / "model.json").read_bytes()
    assert b'"source":"examples/neurips2026-abstracts.txt:line 3"' in model


# -- caches that are valid JSON but wrong -----------------------------------------------


def _example_corpus(path: Path, drop_last: int = 0) -> Path:
    """The example corpus (same file name, so the same paper ids), maybe without its last
    ``drop_last`` abstracts."""
    paras = [p for p in EXAMPLE.read_text(encoding="utf-8").split("\n\n") if p.strip()]
    path.write_text("\n\n".join(paras[:len(paras) - drop_last]) + "\n", encoding="utf-8")
    return path


def _rebuild_from_scratch_noting(corpus: Path, out: Path, damaged: str) -> None:
    """``kg build`` into ``out`` again succeeds with one note: ``damaged`` is not trusted."""
    proc = subprocess.run([sys.executable, "-m", "kg", "build", corpus, "-o", out,
                           "-q", "--no-page"], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == (f"kg: note: {out / damaged} does not hold what its "
                           "hashes say (edited or damaged); building from scratch\n")


def test_an_index_whose_offsets_were_shifted_is_not_trusted(tmp_path):
    from kg.build import build
    from kg.core.layout import INDEX, TURTLE

    corpus = _example_corpus(tmp_path / EXAMPLE.name, drop_last=1)
    build([corpus], tmp_path / "out", page=False)
    index = json.loads((tmp_path / "out" / INDEX).read_text())
    for block in index["papers"].values():
        block[0] += 7  # same file size, every paper block read 7 bytes off
    (tmp_path / "out" / INDEX).write_text(json.dumps(index))

    _example_corpus(corpus)  # one abstract more: the other blocks would be reused
    _rebuild_from_scratch_noting(corpus, tmp_path / "out", INDEX)
    full = build([corpus], tmp_path / "full", page=False, incremental=False)
    assert (tmp_path / "out" / TURTLE).read_bytes() == (full.out / TURTLE).read_bytes()


def test_a_cache_with_edited_spans_is_not_trusted(tmp_path):
    from extractors import pipeline
    from kg.build import build
    from kg.core.layout import CACHE, MODEL

    if pipeline.span_model_dir() is None:
        pytest.skip("no span model installed: nothing to cache")
    corpus = _example_corpus(tmp_path / EXAMPLE.name)
    build([corpus], tmp_path / "out", page=False)
    header, *lines = (tmp_path / "out" / CACHE).read_text().splitlines()
    records = [json.loads(line) for line in lines]  # [key, model, sents, ...] per text
    for record in records:
        record[1] = [[s + 1, e, t] for s, e, t in record[1]]  # every model span moved
    (tmp_path / "out" / CACHE).write_text("\n".join([header, *map(json.dumps, records)]) + "\n")

    _rebuild_from_scratch_noting(corpus, tmp_path / "out", CACHE)
    full = build([corpus], tmp_path / "full", page=False, incremental=False)
    assert (tmp_path / "out" / MODEL).read_bytes() == (full.out / MODEL).read_bytes()


@given(st.text(alphabet="ab (\n\t.", max_size=600), st.integers(0, 600), st.integers(1, 17))
def test_acronym_long_forms_read_the_same_words_as_splitting_the_whole_prefix(text, end, n):
    """Acronym definitions look back a few words; reading the whole prefix was quadratic."""
    from extractors.acronyms import _WORD, _last_words

    end = min(end, len(text))
    old = list(_WORD.finditer(text[:end].rstrip()))[-n:]
    assert [(w.start(), w.end()) for w in _last_words(text, end, n)] == \
        [(w.start(), w.end()) for w in old]


def test_html_comments_are_blanked_and_an_unclosed_one_is_left(tmp_path):
    """Comments are blanked in one pass (the regex was quadratic on unclosed ones)."""
    from extractors.markup import mask_markup

    text = "GNNs <!-- a note --> work. " + "<!-- open " * 1000
    masked = mask_markup(text)
    assert len(masked) == len(text)
    assert masked.startswith("GNNs " + " " * len("<!-- a note -->") + " work. <!-- open ")
