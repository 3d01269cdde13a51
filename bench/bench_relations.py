"""CPU seconds of the relation stage of ``kg build`` with and without the argument model.

Extracts a corpus once (in-process), keeps what the relation stage is given
(:func:`extractors.pipeline.corpus_relations`' arguments), then runs that stage alone, in
turn with the shipped relation model without its argument model (arguments = span model's
spans + mentions) and with it, ``--repeat`` times each, alternating; prints the CPU
seconds (``time.process_time``) of each run and the number of relations.

Usage::

    PYTHONPATH=. python bench/bench_relations.py ../shared/data/neurips2018.jsonl
"""

from __future__ import annotations

import argparse
import copy
import time

from extractors import pipeline
from extractors.relation_model import load_relation_model
from kg.core.readers import read_corpus


def main() -> None:
    """Command-line entry point."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("corpus")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    seen: dict = {}
    original = pipeline.corpus_relations

    def keep(*a, **kw):
        seen["args"], seen["kw"] = a, kw
        return []

    pipeline.corpus_relations = keep
    papers = read_corpus([args.corpus]).papers
    pipeline.extract_corpus(papers, workers=1, relation_model=False)
    pipeline.corpus_relations = original
    shipped = load_relation_model()
    assert shipped is not None, "no relation model installed"
    plain = copy.copy(shipped)
    plain.arguments = None
    for _ in range(args.repeat):
        for name, model in (("span model + mentions", plain), ("argument model", shipped)):
            t0 = time.process_time()
            found = original(*seen["args"], model=model, patterns=True)
            cpu = time.process_time() - t0
            print(f"{name}: {cpu:.2f} CPU-s, {len(found)} relations, "
                  f"{len(papers) / cpu:.0f} abstracts per CPU-s", flush=True)


if __name__ == "__main__":
    main()
