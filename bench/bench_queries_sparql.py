"""How fast the SPARQL helpers answer on a ~20,000-paper graph (run on demand, not in tests).

The graph is NeurIPS 2018 + ICLR 2018 (../shared/data), extracted once, then
repeated with fresh paper ids until it has ``--papers`` papers, and written as a
normal build folder (``model.json``, ``graph.ttl``, ``store/``) in ``--out``;
a later run reuses that folder. Each helper runs ``--repeat`` times on a few
concepts and papers: the busiest and rare ones, and a fixed-seed random sample
(``--sample`` concepts, papers and concept pairs: what a user would ask); the
table gives the median, 90th percentile and worst time per call for the SPARQL
engine, and the Python engine's median for comparison (its time excludes
loading ``model.json``). Every helper is the shared one in :mod:`queries.questions`
(``bridges`` from :mod:`queries.bridging`) over each engine.

    python bench/bench_queries_sparql.py                 # builds /tmp/kg-bench-20k once
    python bench/bench_queries_sparql.py --papers 5000 --out /tmp/kg-bench-5k
    python bench/bench_queries_sparql.py --no-python --only cooccurring
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
DATA = ROOT.parent / "shared" / "data"


def build_large(out: Path, papers: int) -> None:
    """Extract the two corpora once and repeat them with fresh ids up to ``papers``."""
    from extractors.pipeline import extract_corpus
    from kg.core.layout import MODEL
    from kg.core.model import KnowledgeGraph
    from kg.core.readers import read_corpus
    from kg.stores.out import write_manifest, write_rdf

    t = time.perf_counter()
    report = read_corpus([DATA / "neurips2018.jsonl", DATA / "iclr2018.jsonl"], on_error="skip")
    base = extract_corpus(report.papers)
    print(f"extracted {len(base.papers)} papers in {time.perf_counter() - t:.0f} s",
          file=sys.stderr)
    kg = KnowledgeGraph(concepts=dict(base.concepts))
    copy = 0
    while len(kg.papers) < papers:
        for pid, p in base.papers.items():
            if len(kg.papers) >= papers:
                break
            new_id = f"{pid}-r{copy}" if copy else pid
            kg.papers[new_id] = replace(p, id=new_id)
        copy += 1
    for cp in range(copy):
        for m in base.mentions:
            new_id = f"{m.paper}-r{cp}" if cp else m.paper
            if new_id in kg.papers:
                kg.mentions.append(replace(m, paper=new_id))
    out.mkdir(parents=True, exist_ok=True)
    kg.save(out / MODEL)
    n = write_rdf(kg, out)
    write_manifest(out, {"bench": True, "papers": len(kg.papers), "triples": n})
    print(f"wrote {out}: {len(kg.papers)} papers, {len(kg.mentions)} mentions, {n} triples "
          f"in {time.perf_counter() - t:.0f} s", file=sys.stderr)


def rewrite_rdf(out: Path) -> None:
    """Write ``graph.ttl`` and ``store/`` again from ``out/model.json``."""
    from kg.stores.out import load_model, write_rdf

    t = time.perf_counter()
    n = write_rdf(load_model(out), out)
    print(f"rewrote {out} RDF: {n} triples in {time.perf_counter() - t:.0f} s", file=sys.stderr)


def timed(fn, *args, repeat: int, **kwargs) -> list[float]:
    """Seconds per call; an error the user would see (no path, …) is an answer too."""
    from kg.core.errors import KGError

    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        with contextlib.suppress(KGError):
            fn(*args, **kwargs)
        times.append(time.perf_counter() - t)
    return times


def p90(times: list[float]) -> float:
    return statistics.quantiles(times, n=10, method="inclusive")[-1] if len(times) > 1 \
        else times[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--papers", type=int, default=20_000)
    parser.add_argument("--out", type=Path, default=Path("/tmp/kg-bench-20k"))
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--sample", type=int, default=30,
                        help="Random concepts, papers and pairs per sampled row (seed 20).")
    parser.add_argument("--only", default="", help="Run only the rows whose name contains this.")
    parser.add_argument("--rebuild", action="store_true")
    parser.add_argument("--no-python", action="store_true", help="Skip the Python engine.")
    args = parser.parse_args()

    from kg.stores.out import load_model, open_store
    from queries import QUESTIONS
    from queries.python import PythonEngine
    from queries.sparql import SparqlEngine

    if args.rebuild or not (args.out / "model.json").exists():
        build_large(args.out, args.papers)
    elif not (args.out / "store").exists():  # model kept, RDF form changed: rewrite it only
        rewrite_rdf(args.out)
    store = open_store(args.out)
    t = time.perf_counter()
    kg = load_model(args.out)
    load = time.perf_counter() - t
    engines = {"sparql": SparqlEngine(store), "python": PythonEngine(kg)}
    stats = QUESTIONS["stats"](engines["python"])
    by_df = sorted(kg.concept_papers, key=lambda c: (-len(kg.concept_papers[c]), c))
    common = [kg.concepts[c].label for c in by_df[:2]]
    rare = [kg.concepts[c].label for c in by_df[len(by_df) // 2: len(by_df) // 2 + 2]]
    pids = sorted(kg.papers)
    papers = [pids[0], pids[len(pids) // 2], pids[-1]]
    # what a user might ask: any concept with papers (directly or through narrower ones)
    rng = random.Random(20)
    askable = sorted(c for c in kg.concepts if kg.descendants(c) & kg.concept_papers.keys())
    sampled = [kg.concepts[c].label for c in rng.sample(askable, min(args.sample, len(askable)))]
    sampled_papers = rng.sample(pids, min(args.sample, len(pids)))
    sampled_pairs = [tuple(kg.concepts[c].label for c in rng.sample(askable, 2))
                     for _ in range(args.sample)]
    cases = {
        "papers_for_concept (common)": ("papers_for_concept", [(c,) for c in common]),
        "papers_for_concept (rare)": ("papers_for_concept", [(c,) for c in rare]),
        "papers_for_concept (sample)": ("papers_for_concept", [(c,) for c in sampled]),
        "paper": ("paper", [(p,) for p in papers]),
        "paper (sample)": ("paper", [(p,) for p in sampled_papers]),
        "related_papers": ("related_papers", [(p,) for p in papers]),
        "related_papers (sample)": ("related_papers", [(p,) for p in sampled_papers]),
        "cooccurring (common)": ("cooccurring", [(c,) for c in common]),
        "cooccurring (rare)": ("cooccurring", [(c,) for c in rare]),
        "cooccurring (sample)": ("cooccurring", [(c,) for c in sampled]),
        "concept_path": ("concept_path", [(common[0], rare[0]), (rare[0], rare[1]),
                                          (common[1], rare[1])]),
        "concept_path (sample)": ("concept_path", sampled_pairs),
        "bridges (common, common)": ("bridges", [(common[0], common[1])]),
        "bridges (common, rare)": ("bridges", [(common[0], rare[0]), (common[1], rare[1])]),
        "bridges (rare, rare)": ("bridges", [(rare[0], rare[1])]),
        "bridges (sample)": ("bridges", [p for p in sampled_pairs if p[0] != p[1]]),
        "stats": ("stats", [()]),
    }
    print(f"graph: {stats['papers']} papers, {stats['concepts']} concepts, "
          f"{stats['mentions']} mentions; cpus: {os.cpu_count()}; "
          f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}; "
          f"model.json load {load:.1f} s; repeat {args.repeat}")
    print(f"common concepts: {common} ({len(kg.concept_papers[by_df[0]])} papers); "
          f"rare: {rare}; sample: {len(sampled)} concepts, {len(sampled_papers)} papers, "
          f"{len(sampled_pairs)} pairs (seed 20)")
    header = f"{'helper':<28} {'calls':>5} {'median':>9} {'p90':>9} {'max':>9} {'per s':>7}"
    if not args.no_python:
        header += f" {'python median':>14} {'ratio':>6}"
    print(header)
    results = {}
    for name, (helper, calls) in cases.items():
        if args.only not in name:
            continue
        sparql_times, python_times = [], []
        for call in calls:
            try:
                sparql_times += timed(QUESTIONS[helper], engines["sparql"], *call,
                                      repeat=args.repeat)
                if not args.no_python:
                    python_times += timed(QUESTIONS[helper], engines["python"], *call,
                                          repeat=args.repeat)
            except Exception as e:  # noqa: BLE001 - a bench reports and goes on
                print(f"  {helper}{call}: {e!r}", file=sys.stderr)
        if not sparql_times:
            continue
        med, top = statistics.median(sparql_times), p90(sparql_times)
        line = (f"{name:<28} {len(calls):>5} {med * 1000:>6.1f} ms {top * 1000:>6.1f} ms "
                f"{max(sparql_times) * 1000:>6.1f} ms {1 / med:>7.1f}")
        results[name] = {"calls": len(calls), "sparql_median_s": med, "sparql_p90_s": top,
                         "sparql_max_s": max(sparql_times)}
        if python_times:
            pmed = statistics.median(python_times)
            line += f" {pmed * 1000:>11.1f} ms {med / pmed:>6.1f}"
            results[name]["python_median_s"] = pmed
        print(line, flush=True)
    print(json.dumps(results), file=sys.stderr)


if __name__ == "__main__":
    main()
