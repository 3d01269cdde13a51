"""Peak memory of a command and every process it starts: PSS summed over the tree.

    python bench/tree_memory.py LOG -- python -m kg build CORPUS -o OUT
    python bench/tree_memory.py --every 0.5 LOG -- CMD ...

Runs ``CMD`` and samples, every ``--every`` seconds, the proportional set size (PSS) of it
and of every descendant (extraction workers, the forked writers): PSS divides a page shared
by forked processes among them, so the sum is what the tree really holds, where summed RSS
counts shared pages once per process. Each sample is a line of ``LOG``
(``seconds total_MiB pid:MiB ...``); at the end, the peak (when, which processes), the wall
time and the load average before and after go to standard output and to ``LOG``. The
figures of bench/README.md quoted as "peak PSS of all its processes" (and, before this file
was committed, from ``treemem.py``) are this script's.

Exit status: ``CMD``'s.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from collections.abc import Callable
from typing import TypeVar

import psutil

T = TypeVar("T")


def per_process(root: psutil.Process, read: Callable[[psutil.Process], T]) -> dict[int, T]:
    """``read(p)`` of ``root`` and of each of its descendants still alive, by pid
    (``bench/tree_cpu.py`` reads CPU times with it)."""
    out: dict[int, T] = {}
    try:
        procs = [root, *root.children(recursive=True)]
    except psutil.Error:
        return out
    for p in procs:
        try:
            out[p.pid] = read(p)
        except psutil.Error:  # ended between the listing and the read
            continue
    return out


def _tree_pss(root: psutil.Process) -> dict[int, int]:
    """PSS in KiB of ``root`` and each of its descendants still alive."""
    return per_process(root, lambda p: p.memory_full_info().pss // 1024)


def command_line(description: str, argv: list[str] | None = None
                 ) -> tuple[str, float, list[str]]:
    """``LOG``, ``--every`` and the command after ``--`` of a sampler's command line
    (this one's and ``bench/tree_cpu.py``'s)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("log", help="file the samples go to")
    parser.add_argument("--every", type=float, default=0.5, help="seconds between samples")
    parser.add_argument("cmd", nargs=argparse.REMAINDER, help="-- then the command")
    args = parser.parse_args(argv)
    cmd = args.cmd[1:] if args.cmd[:1] == ["--"] else args.cmd
    if not cmd:
        parser.error("no command given (put it after --)")
    return args.log, args.every, cmd


def main(argv: list[str] | None = None) -> int:
    log_path, every, cmd = command_line(__doc__.splitlines()[0], argv)
    load_before = os.getloadavg()
    start = time.monotonic()
    child = subprocess.Popen(cmd)
    root = psutil.Process(child.pid)
    peak, peak_at, peak_parts = 0, 0.0, {}
    with open(log_path, "w", encoding="utf-8") as log:
        print("# " + " ".join(cmd), file=log)
        while child.poll() is None:
            parts = _tree_pss(root)
            total = sum(parts.values())
            now = time.monotonic() - start
            print(f"{now:.1f} {total / 1024:.1f} "
                  + " ".join(f"{pid}:{kib / 1024:.1f}" for pid, kib in parts.items()), file=log)
            if total > peak:
                peak, peak_at, peak_parts = total, now, parts
            time.sleep(every)
        wall = time.monotonic() - start
        summary = (f"peak PSS {peak / 1024:,.0f} MiB ({peak:,} KiB) at {peak_at:.1f} s ("
                   + ", ".join(f"{pid}: {kib / 1024:,.0f} MiB"
                               for pid, kib in sorted(peak_parts.items()))
                   + f"); wall {wall:.1f} s; load {load_before[0]:.2f} before, "
                   f"{os.getloadavg()[0]:.2f} after; exit {child.returncode}")
        print("# " + summary, file=log)
    print(summary)
    return child.returncode


if __name__ == "__main__":
    sys.exit(main())
