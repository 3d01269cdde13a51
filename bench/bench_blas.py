"""The span model's matrix products with BLIS (thinc's default) and with NumPy's BLAS.

Prints, on one BLAS thread: the milliseconds of one ``n x 288 x 288`` float32 product (the
``tok2vec``'s maxout layers: width 96, 3 pieces) by each library, best of ``--repeat``; then
the CPU seconds of the shipped span model over the titles and abstracts of a corpus, loaded
as ``spacy.load`` does (``blis``: every layer on BLIS, the texts of a batch multiplied
together) and as the build does (``kg``: :func:`extractors.span_model.load_model`, the
``tok2vec`` a text at a time on NumPy's BLAS), alternating, ``--repeat`` times each, and
whether both found the same entities. BLIS picks its kernels by the processor it
recognises: where it does not (AMD family 26, Zen 5, with ``blis`` 1.3), it runs its
generic reference kernel (bench/README.md, issue 17).

Usage::

    PYTHONPATH=. python bench/bench_blas.py ../shared/data/neurips2018.jsonl --texts 2000
"""

from __future__ import annotations

import argparse
import itertools
import os
import time

import blis.py
import numpy as np
import spacy
from threadpoolctl import threadpool_limits

from extractors.span_model import MODEL_DIR, load_model
from kg.core.readers import read_corpus


def _best_ms(fn, repeat: int) -> float:
    fn()
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        for _ in range(10):
            fn()
        best = min(best, (time.perf_counter() - t) / 10)
    return best * 1e3


def main() -> None:
    """Command-line entry point."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("corpus")
    ap.add_argument("--texts", type=int, default=2000, help="titles and abstracts, in order")
    ap.add_argument("--rows", type=int, default=4096, help="rows of the product (tokens)")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    with threadpool_limits(limits=1, user_api="blas"):
        rng = np.random.default_rng(0)
        x = rng.standard_normal((args.rows, 288), dtype=np.float32)
        w = rng.standard_normal((288, 288), dtype=np.float32)
        flops = 2 * args.rows * 288 * 288
        for name, fn in [("blis", lambda: blis.py.gemm(x, w)), ("numpy", lambda: x @ w)]:
            ms = _best_ms(fn, args.repeat)
            print(f"{name:6} {args.rows} x 288 x 288: {ms:6.2f} ms "
                  f"({flops / ms / 1e6:.1f} GFLOP/s)")
        papers = read_corpus([args.corpus]).papers
        texts = list(itertools.islice(
            (t for p in papers for t in (p.title, p.abstract) if t), args.texts))
        models = {"blis": spacy.load(MODEL_DIR), "kg": load_model(MODEL_DIR)}
        ents: dict[str, list] = {}
        for name, nlp in models.items():  # warmed, and the entities kept
            ents[name] = [[(e.start, e.end, e.label_) for e in doc.ents]
                          for doc in nlp.pipe(texts, batch_size=64)]
        for run in range(args.repeat):
            for name, nlp in models.items():
                t = time.process_time()
                for _ in nlp.pipe(texts, batch_size=64):
                    pass
                print(f"run {run + 1} {name:6} {len(texts)} texts: "
                      f"{time.process_time() - t:6.2f} CPU-s (load {os.getloadavg()[0]:.2f})")
        same = sum(a == b for a, b in zip(ents["blis"], ents["kg"], strict=True))
        print(f"the same entities in {same} of {len(texts)} texts")


if __name__ == "__main__":
    main()
