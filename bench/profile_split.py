"""Where a build's CPU goes, per process and per step, from a py-spy profile (issue 17).

    pip install ".[bench]"      # py-spy
    py-spy record -r 10 --subprocesses --format raw -o new.raw -- \\
        kg build /tmp/kg-20000.jsonl -o OUT -q
    python bench/profile_split.py new.raw [old.raw ...]

py-spy samples every thread that is running or waiting for a core (not idle ones), so a
sample count is CPU time plus time spent waiting for a core: on a busy machine it overstates
CPU for every process alike. Processes are told apart by how deep they are in the build's
tree (1: the build's own process; 2: its extraction process, or the forked workers and
writer of older code; 3: the local Dask workers). The steps are frames by name, counted
inclusively (a step's time holds its callees'), once per sample even when recursive.
"""

from __future__ import annotations

import argparse
import re
from collections import Counter
from pathlib import Path

#: (label, regular expression matched against a frame's function name)
STEPS = [
    ("spaCy pipe (all components)", r"^Language\.pipe$"),
    ("  tokenizer (make_doc)", r"^Language\.make_doc$"),
    ("  span model tok2vec", r"^Tok2Vec\.predict$"),
    ("  concept matcher", r"^ConceptMatcher\.__call__$"),
    ("  coined-name patterns", r"^CoinedNameMatcher\.__call__$"),
    ("relations (argument + relation models, patterns)", r"^find_relations$"),
    ("  argument model", r"^ArgumentModel\.arguments$"),
    ("  relation model", r"^RelationModel\.predict$"),
    ("Dask worker tasks", r"^_run_task_simple$"),
    ("corpus statistics", r"^CorpusStats\.of$"),
    ("consolidation (resolve_corpus)", r"^resolve_corpus$"),
    ("  resolve", r"^resolve$"),
    ("  propagate", r"^propagate$"),
    ("corpus relations (after extraction)", r"^corpus_relations$"),
    ("page", r"^default_page$"),
    ("spill file", r"^dump_spill$"),
    ("writers (graph.ttl, store, model.sqlite, model.json)", r"^write_rdf$"),
    ("  store's bulk loader (a thread)", r"^_StoreLoad\._load$"),
    ("model.json, older code (KnowledgeGraph.save)", r"^KnowledgeGraph\.save$"),
]
_FRAME = re.compile(r"^(?P<fn>.*?) \((?P<where>[^()]*)\)$")


def split(path: Path) -> tuple[Counter, dict[int, Counter]]:
    """Samples per process depth, and per depth the samples of each step of :data:`STEPS`."""
    steps = [(label, re.compile(rx)) for label, rx in STEPS]
    per_depth: Counter = Counter()
    per_step: dict[int, Counter] = {}
    with path.open(encoding="utf-8") as f:
        for line in f:
            stack, _, n = line.rstrip("\n").rpartition(" ")
            frames = stack.split(";")
            processes = [i for i, fr in enumerate(frames) if fr.startswith("process ")]
            depth = len(processes)
            per_depth[depth] += int(n)
            names = {m.group("fn") for fr in frames[processes[-1] + 1:] if (m := _FRAME.match(fr))}
            counts = per_step.setdefault(depth, Counter())
            for label, rx in steps:
                if any(rx.search(name) for name in names):
                    counts[label] += int(n)
    return per_depth, per_step


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("profiles", nargs="+", type=Path, help="py-spy --format raw files")
    parser.add_argument("--rate", type=float, default=10.0, help="py-spy's -r (samples/s)")
    args = parser.parse_args()
    for path in args.profiles:
        per_depth, per_step = split(path)
        print(f"\n{path}: {sum(per_depth.values()) / args.rate:.1f} s sampled")
        for depth in sorted(per_depth):
            if per_depth[depth] < args.rate:  # under a second: Dask's profiler threads etc.
                continue
            print(f"  processes at depth {depth}: {per_depth[depth] / args.rate:8.1f} s")
            for label, _ in STEPS:
                n = per_step[depth][label]
                if n >= args.rate / 2:
                    print(f"    {label:<56} {n / args.rate:8.1f} s")


if __name__ == "__main__":
    main()
