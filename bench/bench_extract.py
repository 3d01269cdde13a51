"""Throughput of ``kg extract`` on the 1,003 NeurIPS 2018 abstracts, next to a blank tokenizer.

Usage::

    python bench/bench_extract.py [--corpus ../shared/data/neurips2018.jsonl] [--repeat 1]

Prints, for the same texts in the same run: a blank spaCy English tokenizer
(the floor any spaCy pipeline pays), ``extract_corpus`` in-process (lexicon +
acronyms + span model + patterns + corpus resolution) and the ``kg extract``
command end to end (start-up, reading, extraction, JSON output), as abstracts/s
and as a ratio to the tokenizer. Not a test: numbers depend on the machine.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main() -> int:
    """Run the benchmark and print one line per contender."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", type=Path,
                    default=ROOT.parent / "shared" / "data" / "neurips2018.jsonl")
    ap.add_argument("--repeat", type=int, default=1, help="best of N runs")
    args = ap.parse_args()

    import spacy

    from extractors.pipeline import extract_corpus, field_texts, span_model_dir
    from kg.core.readers import read_corpus

    papers = read_corpus([args.corpus]).papers
    n = len(papers)
    texts = [t for t, _ in field_texts(papers)]
    print(f"{args.corpus.name}: {n} abstracts ({len(texts)} texts with titles), "
          f"{os.cpu_count()} CPUs, span model: {span_model_dir() or 'absent'}")

    def best(fn) -> float:
        times = []
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t0)
        return min(times)

    tok = spacy.blank("en").tokenizer
    t_tok = best(lambda: list(tok.pipe(texts, batch_size=256)))
    t_lib = best(lambda: extract_corpus(papers))
    t_cli = best(lambda: subprocess.run(
        [sys.executable, "-m", "kg", "extract", str(args.corpus), "--format", "jsonl"],
        check=True, stdout=subprocess.DEVNULL))
    for name, t in [("blank tokenizer", t_tok), ("extract_corpus", t_lib),
                    ("kg extract (CLI)", t_cli)]:
        print(f"{name:18} {t:7.2f} s  {n / t:8.1f} abstracts/s  {t / t_tok:6.1f}x tokenizer")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
