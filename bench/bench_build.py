"""``kg build`` throughput, peak memory and incremental rebuilds, next to a blank tokenizer.

    python bench/bench_build.py                          # NeurIPS 2018 (1,003 abstracts)
    python bench/bench_build.py --corpus /tmp/kg-20k.jsonl   # see bench/make_corpus.py

Runs, in one process tree and one run: a blank spaCy tokenizer over the same texts
(the ceiling), ``kg build`` from scratch (a subprocess; wall time and peak RSS), then
``kg build`` again into the same OUT with ``--add`` more abstracts (fresh ids), which
re-extracts only the new texts. Prints abstracts/s and ratios, then the extraction
figures of the same code (``kg eval scierc`` and ``kg eval keywords``). Not a test.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def run_build(inputs: list[Path], out: Path, *extra: str) -> tuple[float, float]:
    """Wall seconds and peak RSS (MB) of one ``kg build`` subprocess."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    t = time.perf_counter()
    subprocess.run([sys.executable, "-m", "kg", "build", *map(str, inputs), "-o", str(out),
                    *extra], check=True, stdout=subprocess.DEVNULL)
    took = time.perf_counter() - t
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return took, max(peak, before) / 1024


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", type=Path,
                    default=ROOT.parent / "shared" / "data" / "neurips2018.jsonl")
    ap.add_argument("--add", type=int, default=10, help="abstracts added for the rebuild")
    ap.add_argument("--no-eval", action="store_true",
                    help="skip the extraction-quality figures (kg eval) after the table")
    args = ap.parse_args()

    import spacy

    from extractors.pipeline import field_texts
    from kg.core.readers import read_corpus

    papers = read_corpus([args.corpus]).papers
    n = len(papers)
    texts = [t for t, _ in field_texts(papers)]
    tok = spacy.blank("en").tokenizer
    t = time.perf_counter()
    list(tok.pipe(texts, batch_size=256))
    t_tok = time.perf_counter() - t
    load = os.getloadavg()[0]
    print(f"{args.corpus.name}: {n} abstracts, {os.cpu_count()} CPUs, load {load:.1f}")

    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        out = tmp / "out"
        corpus = tmp / "corpus.jsonl"  # same file name both times: same paper ids
        lines = args.corpus.read_text(encoding="utf-8").splitlines()
        corpus.write_text("\n".join(lines) + "\n", encoding="utf-8")
        t_full, rss_full = run_build([corpus], out)
        extra = []
        for i, line in enumerate(lines[: args.add]):
            r = json.loads(line)
            r["id"] = f"added-{i}"
            r["abstract"] = "We revisit this question. " + r["abstract"]
            extra.append(json.dumps(r))
        corpus.write_text("\n".join(lines + extra) + "\n", encoding="utf-8")
        t_inc, rss_inc = run_build([corpus], out)
        t_again, _ = run_build([corpus], out, "--no-incremental")
    rows = [("blank tokenizer", t_tok, n, None), ("kg build", t_full, n, rss_full),
            (f"kg build +{args.add} (incremental)", t_inc, n + args.add, rss_inc),
            (f"kg build +{args.add} (from scratch)", t_again, n + args.add, None)]
    print(f"{'':34} {'seconds':>8} {'abstracts/s':>12} {'x tokenizer':>12} {'peak RSS':>9}")
    for name, took, count, rss in rows:
        mem = f"{rss:6.0f} MB" if rss else ""
        print(f"{name:34} {took:8.2f} {count / took:12.1f} {took / t_tok:12.1f} {mem:>9}")
    print(f"incremental / from-scratch rebuild: {t_inc / t_again:.2f}")
    if not args.no_eval:
        quality()
    return 0


def quality() -> None:
    """The extraction figures of the same code (``kg eval``), so speed-ups show their cost."""
    data = ROOT.parent / "shared" / "data"
    runs = [("SciERC dev, exact spans", ["scierc", str(data / "scierc" / "dev.jsonl")]),
            ("ICLR 2018 author keywords", ["keywords", str(data / "iclr2018.jsonl")])]
    print("extraction quality (kg eval, same code):")
    for name, argv in runs:
        if not Path(argv[1]).is_file():
            print(f"  {name}: skipped, {argv[1]} is missing")
            continue
        out = subprocess.run([sys.executable, "-m", "kg", "eval", *argv], check=True,
                             capture_output=True, text=True).stdout
        lines = [ln for ln in out.splitlines() if ln.startswith(("typed", "untyped"))
                 or "recall" in ln]
        print(f"  {name}:")
        for ln in lines:
            print(f"    {ln.strip()}")


if __name__ == "__main__":
    raise SystemExit(main())
