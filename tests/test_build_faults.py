"""Faults on the build side: dying workers, huge abstracts, lying caches, hostile inputs.

Every test here reproduces a failure of issue 18 that the code before it did not survive.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

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
    try:
        return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def test_a_killed_extraction_worker_fails_the_build_instead_of_hanging(out, tmp_path):
    corpus = _replicated_corpus(tmp_path / "big.jsonl", 40)  # 760 papers: forked workers
    before = snapshot(out)
    build = subprocess.Popen([sys.executable, "-m", "kg", "build", corpus, "-o", out, "-q"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             cwd=ROOT)
    try:
        workers: list[int] = []
        while len(workers) < 2 and build.poll() is None:
            time.sleep(0.02)
            workers = _children(build.pid)
        assert len(workers) == 2, "the build never forked its two extraction workers"



        os.kill(workers[0], signal.SIGKILL)
        # a hang guard, not a speed test: before the fix the build waited forever
        stdout, stderr = build.communicate(timeout=120)
    finally:
        if build.poll() is None:
            build.kill()
            build.wait()
    assert build.returncode == 2
    assert stderr.count("\n") == 1
    assert stderr.startswith("kg: error: extraction stopped: worker ")
    assert "killed by SIGKILL" in stderr
    assert_intact(out, before)


def _die_on_two(n: int) -> int:
    if n == 2:
        os.kill(os.getpid(), signal.SIGKILL)
    return n


def test_every_worker_pool_fails_fast_when_a_worker_dies():
    """Extraction and propagation share :func:`fork_map`: a dead worker is an error, not a hang."""
    from extractors.workers import fork_map
    from kg.core.errors import WorkerError

    with pytest.raises(WorkerError, match=r"^term propagation stopped: worker \d+ was killed "
                                          r"by SIGKILL \(out of memory\?\); nothing was written$"):
        list(fork_map(_die_on_two, range(6), 2, what="term propagation"))


def test_ctrl_c_stops_a_build_in_its_workers(out, tmp_path):
    corpus = _replicated_corpus(tmp_path / "big.jsonl", 40)
    before = snapshot(out)
    build = subprocess.Popen([sys.executable, "-m", "kg", "build", corpus, "-o", out, "-q"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             cwd=ROOT, start_new_session=True)
    try:
        workers: list[int] = []
        while len(workers) < 2 and build.poll() is None:
            time.sleep(0.02)
            workers = _children(build.pid)
        assert len(workers) == 2, "the build never forked its two extraction workers"
        os.killpg(build.pid, signal.SIGINT)  # Ctrl-C reaches the whole foreground group
        stdout, stderr = build.communicate(timeout=120)
    finally:
        if build.poll() is None:
            build.kill()
            build.wait()
    assert build.returncode == 130
    assert stderr == "kg: interrupted; nothing was changed\n"
    assert not any(Path(f"/proc/{w}").exists() for w in workers)
    assert_intact(out, before)
