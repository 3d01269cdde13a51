"""CPU seconds of a command and of every process it starts, and when each one ran.

    python bench/tree_cpu.py LOG -- python -m kg build CORPUS -o OUT -q
    python bench/tree_cpu.py --every 0.5 LOG -- CMD ...

Runs ``CMD`` and reads, every ``--every`` seconds, the CPU time (user + system, all its
threads) of it and of each descendant: the build's own process, its extraction process, the
extraction workers, the forked writer. Each sample is a line of ``LOG`` (``seconds
pid:parent:cpu_seconds ...``). At the end, one line per process goes to standard output and
to ``LOG``: when it was first and last seen, and its CPU seconds at the last sample (a
process's last ``--every`` seconds are not counted). Where ``py-spy`` counts a sample for a
thread waiting for a core as well as for one running (``bench/profile_split.py``), these are
the kernel's own counts: two builds' processes compare in CPU time, and the phases in wall
time (the workers' lifetime is the extraction's).

Exit status: ``CMD``'s.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

import psutil
from tree_memory import command_line, per_process


def _parent_and_cpu(p: psutil.Process) -> tuple[int, float]:
    times = p.cpu_times()
    return p.ppid(), times.user + times.system


def _tree_cpu(root: psutil.Process) -> dict[int, tuple[int, float]]:
    """``pid -> (parent pid, CPU seconds)`` of ``root`` and each descendant still alive."""
    return per_process(root, _parent_and_cpu)


def main(argv: list[str] | None = None) -> int:
    log_path, every, cmd = command_line(__doc__.splitlines()[0], argv)
    load_before = os.getloadavg()[0]
    start = time.monotonic()
    child = subprocess.Popen(cmd)
    root = psutil.Process(child.pid)
    # pid -> [first seen, last seen, parent, CPU seconds at the last sample]
    seen: dict[int, list[float]] = {}
    with open(log_path, "w", encoding="utf-8") as log:
        log.write("# " + " ".join(cmd) + "\n")
        while child.poll() is None:
            now = time.monotonic() - start
            sample = _tree_cpu(root)
            for pid, (parent, cpu) in sample.items():
                row = seen.setdefault(pid, [now, now, parent, cpu])
                row[1], row[3] = now, cpu
            log.write(f"{now:.1f} " + " ".join(f"{pid}:{parent}:{cpu:.2f}" for pid, (parent, cpu)
                                               in sample.items()) + "\n")
            log.flush()
            time.sleep(every)
        wall = time.monotonic() - start
        lines = [f"{pid} (parent {int(parent)}): {first:7.1f} to {last:7.1f} s, "
                 f"CPU {cpu:7.1f} s" for pid, (first, last, parent, cpu) in seen.items()]
        lines.append(f"CPU {sum(row[3] for row in seen.values()):.1f} s in all; wall {wall:.1f} s;"
                     f" load {load_before:.2f} before, {os.getloadavg()[0]:.2f} after;"
                     f" exit {child.returncode}")
        for line in lines:
            log.write("# " + line + "\n")
            print(line)
    return child.returncode


if __name__ == "__main__":
    sys.exit(main())
