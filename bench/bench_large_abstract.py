"""One huge, concept-rich abstract: wall time and peak memory of ``kg build`` (issue 18).

    python bench/bench_large_abstract.py            # a 5 MB abstract
    python bench/bench_large_abstract.py --mb 0.5   # smaller ones, to see how time grows

The abstract is the example corpus's abstracts repeated until it is ``--mb`` megabytes long
(every sentence full of lexicon and span-model terms). It is built alone, after a build of
the example corpus that gives the baseline memory; both are ``kg build`` subprocesses. Prints
wall seconds, peak RSS of the largest process (``ru_maxrss`` of the children), the extra
memory over the baseline, the warning line of the reader (abstracts longer than
``kg.core.readers.MAX_TEXT_CHARS`` are truncated) and the load average. Not a test.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "neurips2026-abstracts.txt"


def huge_abstract(chars: int) -> str:
    """The example abstracts, repeated up to ``chars`` characters."""
    paras = EXAMPLE.read_text(encoding="utf-8").split("\n\n")[1:]
    text = " ".join(" ".join(p.split()) for p in paras if p.strip())
    return (text + " ") * (chars // (len(text) + 1)) + text[: chars % (len(text) + 1)]


def run_build(source: Path, out: Path) -> tuple[float, float, str]:
    """Wall seconds, peak RSS (MB) and stderr of one ``kg build`` subprocess.

    Each build runs under its own ``python`` parent, so that ``ru_maxrss`` of the children
    is this build's peak and not an earlier one's.
    """
    probe = (
        "import resource, subprocess, sys, time\n"
        "t = time.perf_counter()\n"
        "p = subprocess.run([sys.executable, '-m', 'kg', 'build', sys.argv[1], '-o', sys.argv[2],"
        " '-q'], capture_output=True, text=True)\n"
        "took = time.perf_counter() - t\n"
        "peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024\n"
        "print(took, peak, p.returncode)\n"
        "sys.stderr.write(p.stderr)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", probe, str(source), str(out)],
                          capture_output=True, text=True, env=env, cwd=ROOT, check=True)
    took, peak, rc = done.stdout.split()
    if rc != "0":
        raise SystemExit(f"kg build failed ({rc}): {done.stderr}")
    return float(took), float(peak), done.stderr


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mb", type=float, default=5.0, help="size of the abstract (10^6 chars)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="kg-bench-large-") as tmp:
        work = Path(tmp)
        base_s, base_mb, _ = run_build(EXAMPLE, work / "base")
        source = work / "huge.jsonl"
        chars = int(args.mb * 1_000_000)
        source.write_text(json.dumps({"id": "huge", "title": "One huge abstract",
                                      "abstract": huge_abstract(chars)}) + "\n",
                          encoding="utf-8")
        took, peak, stderr = run_build(source, work / "huge")
        counts = json.loads((work / "huge" / "manifest.json").read_text())["counts"]
    load = os.getloadavg()
    print(f"abstract: {chars:,} characters; built in {took:.1f} s, peak RSS {peak:.0f} MB "
          f"({peak - base_mb:+.0f} MB over the example corpus's {base_mb:.0f} MB, "
          f"built in {base_s:.1f} s)")
    print(f"graph: {counts['concepts']} concepts, {counts['mentions']} mentions")
    for line in stderr.splitlines():
        print(f"stderr: {line}")
    print(f"load average: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} ({os.cpu_count()} CPUs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
