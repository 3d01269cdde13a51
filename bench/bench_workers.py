"""``kg build`` on one process, on local Dask workers, and (optionally) with older code,
side by side in one run: wall and CPU time, abstracts/s, the load average, identical outputs.

    python bench/bench_workers.py                              # NeurIPS 2018, 1,003 abstracts
    git archive COMMIT | tar -x -C /tmp/before                  # older code, e.g. main before
    python bench/bench_workers.py --before /tmp/before --repeat 2

Each build is a ``kg build --no-incremental -q`` subprocess into a fresh folder, from the
same working directory and input path (``model.json`` records the path); the contenders
take turns, ``--repeat`` times. ``--before`` runs that checkout's code (``PYTHONPATH``) with
its default options. The outputs the determinism tests compare must be byte-identical
between all builds. Not a test: the figures depend on the machine and its load, which is
printed before and after each build (``os.getloadavg``).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FILES = ("graph.ttl", "model.json", "manifest.json", "graph.html")


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def _children_cpu() -> float:
    """User + system seconds of the finished child processes and their descendants (a
    build's workers included)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", type=Path,
                    default=ROOT.parent / "shared" / "data" / "neurips2018.jsonl")
    ap.add_argument("--before", type=Path, help="a checkout of older code to run too")
    ap.add_argument("--workers", default="1,2", help="--workers values to run (comma list)")
    ap.add_argument("--repeat", type=int, default=1)
    args = ap.parse_args()

    n = sum(1 for line in args.corpus.open(encoding="utf-8") if line.strip())
    contenders: list[tuple[str, Path, list[str]]] = []
    if args.before:
        contenders.append(("before", args.before.resolve(), []))
    contenders += [(f"--workers {w}", ROOT, ["--workers", w]) for w in args.workers.split(",")]
    work = Path(tempfile.mkdtemp(prefix="kg-bench-workers-"))
    shutil.copy(args.corpus, work / args.corpus.name)
    print(f"{args.corpus.name}: {n:,} abstracts; {os.cpu_count()} cores")
    outputs: dict[str, dict[str, bytes]] = {}
    try:
        for _ in range(args.repeat):
            for name, code, extra in contenders:
                out = work / "out"
                shutil.rmtree(out, ignore_errors=True)
                before = load()
                cpu = _children_cpu()
                start = time.perf_counter()
                subprocess.run([sys.executable, "-m", "kg", "build", args.corpus.name, "-o",
                                "out", "-q", "--no-incremental", *extra], cwd=work, check=True,
                               env={**os.environ, "PYTHONPATH": str(code)})
                seconds = time.perf_counter() - start
                cpu = _children_cpu() - cpu
                print(f"{name:>12}: {seconds:6.1f} s, {n / seconds:5.1f} abstracts/s, "
                      f"CPU {cpu:5.1f} s   (load {before} → {load()})", flush=True)
                outputs[name] = {f: (out / f).read_bytes() for f in FILES}
    finally:
        shutil.rmtree(work, ignore_errors=True)
    first = next(iter(outputs.values()))
    same = all(o == first for o in outputs.values())
    print("outputs byte-identical:", "yes" if same else "NO")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
