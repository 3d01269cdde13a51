"""``kg build`` on Dask: one process, a local cluster and a cluster started apart
(``dask scheduler`` + ``dask worker`` on 127.0.0.1) give byte-identical outputs.

The builds run in this process, with small tasks so that a slice of real abstracts makes
several extraction and propagation tasks; the in-process paths are made to fail in the
cluster builds, so these prove that the work ran on the workers (a local cluster's workers
end after extraction: propagation then runs in the building process).
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from kg.core.processes import free_port
from tests.conftest import NEURIPS2018_SAMPLE
from tests.guard import FILES, ROOT

LINES = 40  # abstracts: 80 texts, 5 extraction tasks, 10 propagation tasks


@pytest.fixture
def small_tasks(monkeypatch):
    """Tasks of 16 texts, propagation on the workers even for a small corpus."""
    from extractors import consolidate, pipeline

    monkeypatch.setattr(pipeline, "WORKER_CHUNK", 16)
    monkeypatch.setattr(consolidate, "PROPAGATE_CHUNK", 8)
    monkeypatch.setattr(consolidate, "PROPAGATE_PARALLEL_MIN", 1)


def _nothing_here(*_args):
    raise AssertionError("a cluster build ran a task in the building process")


@pytest.fixture
def extraction_on_workers(small_tasks, monkeypatch):
    from extractors import pipeline

    monkeypatch.setattr(pipeline, "_extract_here", _nothing_here)


@pytest.fixture
def only_on_workers(extraction_on_workers, monkeypatch):
    from extractors import consolidate

    monkeypatch.setattr(consolidate, "_propagate_here", _nothing_here)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    path = tmp_path_factory.mktemp("in") / NEURIPS2018_SAMPLE.name
    with open(NEURIPS2018_SAMPLE, encoding="utf-8") as f:
        path.write_text("".join(f.readline() for _ in range(LINES)), encoding="utf-8")
    return path


def _build(corpus, out, **options) -> dict[str, bytes]:
    from kg.build import build

    build([corpus], out, incremental=False, **options)
    return {name: (out / name).read_bytes() for name in FILES}


@pytest.fixture
def one_process(corpus, small_tasks, tmp_path):
    return _build(corpus, tmp_path / "one", workers=1)


def _same(a: dict[str, bytes], b: dict[str, bytes]) -> None:
    for name in FILES:
        assert a[name] == b[name], f"{name} differs"
    assert len(a["graph.ttl"]) > 10_000


def test_a_local_cluster_builds_the_same_bytes(corpus, one_process, extraction_on_workers,
                                               monkeypatch, tmp_path):
    from extractors import consolidate

    # the local workers have ended (their memory is free): propagation runs in the building
    # process (the build's extraction child: it leaves a file behind for this test)
    here = tmp_path / "propagated-here"
    propagate_here = consolidate._propagate_here

    def propagate_and_say(*args):
        here.touch()
        return propagate_here(*args)

    monkeypatch.setattr(consolidate, "_propagate_here", propagate_and_say)
    _same(one_process, _build(corpus, tmp_path / "two", workers=2))
    assert here.exists()


def test_progress_bars_leave_extraction_on_the_workers(corpus, one_process,
                                                      extraction_on_workers, tmp_path):
    # A progress bar starts a thread (tqdm's monitor): the code issue 17 was filed against
    # then forked no workers and extracted in one process (20,000 papers in a terminal:
    # 268-274 s, against 172-180 s with -q; bench/README.md). ``extraction_on_workers``
    # fails a task run here.
    _same(one_process, _build(corpus, tmp_path / "bars", workers=2, progress=True))


def _command_line(_shared, _task):
    with open("/proc/self/cmdline", "rb") as f:
        return f.read().decode()


@pytest.mark.skipif(sys.platform != "linux", reason="workers are forked on Linux only")
def test_local_workers_are_forked_or_started_fresh():
    from extractors.workers import Workers

    with Workers(2) as workers:
        forked = set(workers.map(_command_line, None, range(4), what="a test"))
    with Workers(2, fork=False) as workers:
        fresh = set(workers.map(_command_line, None, range(4), what="a test"))
    assert forked == {_command_line(None, None)}  # this process's copies
    assert all("spawn_main" in c for c in fresh), fresh  # new interpreters


def _frozen(_shared, _task):
    import gc

    return gc.get_freeze_count()


@pytest.mark.skipif(sys.platform != "linux", reason="workers are forked on Linux only")
def test_what_forked_workers_share_is_not_swept_while_they_run():
    # a full collection writes to every object it sweeps, so every page holding one would
    # be copied from the workers' shared memory: frozen while the cluster runs, then back
    import gc

    from extractors.workers import Workers

    assert gc.get_freeze_count() == 0
    with Workers(2) as workers:
        assert gc.get_freeze_count() > 0
        assert all(n > 0 for n in workers.map(_frozen, None, range(2), what="a test"))
    assert gc.get_freeze_count() == 0
    with Workers(2, fork=False) as workers:  # new processes share nothing: nothing frozen
        assert gc.get_freeze_count() == 0
        assert set(workers.map(_frozen, None, range(2), what="a test")) == {0}


def test_a_large_corpus_builds_the_same_bytes_on_workers_started_fresh(
        corpus, one_process, extraction_on_workers, monkeypatch, tmp_path):
    # from FORK_MAX_TEXTS texts on, the local workers are new processes that load the
    # pipeline themselves instead of forked copies of the extraction process
    from extractors import pipeline, workers

    local_cluster = workers._local_cluster

    def recording(n, *, fork=True):  # type: ignore[no-untyped-def]
        (tmp_path / f"fork={fork}").touch()  # (the build extracts in a child process)
        return local_cluster(n, fork=fork)

    monkeypatch.setattr(workers, "_local_cluster", recording)
    monkeypatch.setattr(pipeline, "FORK_MAX_TEXTS", 1)
    _same(one_process, _build(corpus, tmp_path / "fresh", workers=2))
    assert (tmp_path / "fork=False").exists() and not (tmp_path / "fork=True").exists()


@pytest.fixture
def dask_cluster(tmp_path):
    """``dask scheduler`` and ``dask worker`` (two processes) on free 127.0.0.1 ports."""
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}  # the workers import this checkout
    local = ["--host", "127.0.0.1", "--dashboard-address", "127.0.0.1:0", "--no-dashboard"]
    logs = [open(tmp_path / f"{name}.log", "w") for name in ("scheduler", "worker")]  # noqa: SIM115
    procs = [subprocess.Popen([sys.executable, "-m", "dask", "scheduler", "--port", str(port),
                               *local], env=env, stdout=logs[0], stderr=subprocess.STDOUT)]
    try:
        procs.append(subprocess.Popen(
            [sys.executable, "-m", "dask", "worker", address, "--nworkers", "2",
             "--nthreads", "1", "--memory-limit", "0", *local],
            env=env, stdout=logs[1], stderr=subprocess.STDOUT))
        yield address
    finally:
        for p in reversed(procs):
            p.terminate()
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        for log in logs:
            log.close()


def test_a_cluster_started_apart_builds_the_same_bytes(corpus, one_process, only_on_workers,
                                                       dask_cluster, tmp_path):
    _same(one_process, _build(corpus, tmp_path / "apart", scheduler=dask_cluster))
    # both worker processes worked, and keep the pipeline they built for the next build
    from distributed import Client

    with Client(dask_cluster) as client:
        cached = client.run(lambda: len(__import__("extractors.pipeline").pipeline
                                         ._WORKER_PIPELINE))
    assert sorted(cached.values()) == [1, 1]


def test_the_workers_forget_the_words_of_the_texts(corpus, extraction_on_workers, dask_cluster,
                                                   monkeypatch, tmp_path):
    # tasks run in spaCy memory zones: a worker's vocabulary does not keep every new word
    # of every text it extracted, or its memory would grow with the corpus; it keeps the
    # chunks the build warmed its tokenizer with (a fixed number, sent with the pipeline's
    # spec to workers started apart, which load the pipeline themselves)
    import json
    import re

    from distributed import Client

    from extractors import pipeline
    from extractors.pipeline import base_pipeline, span_model_dir

    text = " ".join(json.loads(line)["abstract"] for line in corpus.open(encoding="utf-8"))
    fresh = base_pipeline(span_model_dir()).vocab.strings
    new = sorted({w for w in re.findall(r"[A-Za-z]{6,}", text) if w not in fresh})
    assert len(new) > 100
    warm = tuple(new[::10])
    monkeypatch.setattr(pipeline, "frequent_chunks", lambda texts: warm)
    _build(corpus, tmp_path / "apart", scheduler=dask_cluster)
    with Client(dask_cluster) as client:
        # which of the new words the worker's pipeline holds (a lambda: sent by value)
        held = client.run(lambda words: [
            w for w in words if w in next(iter(__import__("extractors.pipeline").pipeline
                                               ._WORKER_PIPELINE.values()))[0].vocab.strings],
            new)
    assert len(held) == 2
    for words in held.values():  # the concept matcher's terms stay too: a few words of them
        assert set(warm) <= set(words)
        assert len(set(words) - set(warm)) < len(new) / 4, words


def _length(_shared, task):
    return len(task[0])


def test_a_local_cluster_keeps_no_copy_of_the_tasks_it_ran():
    # Dask keeps logs of its last 1,000 messages (each task's texts with them) in the
    # client, the local scheduler (both in the building process) and each worker: kept, the
    # texts sent would grow the build's memory with the corpus, up to 1,000 tasks
    import gc
    import tracemalloc

    from extractors.workers import Workers

    tasks, size = 100, 200_000
    with Workers(2) as workers:
        tracemalloc.start()
        try:
            sent = ([f"{i:05d} " * (size // 6)] for i in range(tasks))
            done = sum(workers.map(_length, None, sent, what="a test"))
            # what is kept, not garbage in reference cycles the collector has not reached
            # yet (Dask's messages leave some: 18 maps measured 0.8-1.6 MB before a
            # collection, 0.3-1.0 MB after; one run of this test, uncollected, 4.96 MB)
            gc.collect()
            held = tracemalloc.get_traced_memory()[0]
        finally:
            tracemalloc.stop()
    assert done == tasks * (size // 6) * 6
    assert held < tasks * size / 10, held  # 20 MB sent


def test_texts_sent_to_the_workers_do_not_grow_here(extraction_on_workers):
    # CPython keeps the UTF-8 form of a str that is not ASCII in the str once it has been
    # pickled: the papers' texts would hold it (a byte or more a character) for the whole
    # build, had they been sent themselves
    import sys

    from extractors.pipeline import extract_corpus
    from kg.core.model import Paper

    papers = [Paper(f"p{i}", f"Naïve Bayes {i} – revisited",
                    f"We study naïve Bayes – a classifier – on the dataset “D{i}”. It is fast.")
              for i in range(40)]
    before = [(sys.getsizeof(p.title), sys.getsizeof(p.abstract)) for p in papers]
    graph = extract_corpus(papers, workers=2)
    assert len({m.paper for m in graph.mentions}) == 40
    assert [(sys.getsizeof(p.title), sys.getsizeof(p.abstract)) for p in papers] == before
