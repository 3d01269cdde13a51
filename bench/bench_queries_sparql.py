"""How fast the SPARQL helpers answer on a ~20,000-paper graph (run on demand, not in tests).

The graph is NeurIPS 2018 + ICLR 2018 (../shared/data), extracted once, then
repeated with fresh paper ids until it has ``--papers`` papers, and written as a
normal build folder (``model.json``, ``graph.ttl``, ``store/``) in ``--out``;
a later run reuses that folder. Each helper runs ``--repeat`` times on a few
concepts and papers (common and rare ones); the table gives the median and the
worst time per call for the SPARQL engine, and the Python engine for
comparison (its time excludes loading ``model.json``).

    python bench/bench_queries_sparql.py                 # builds /tmp/kg-bench-20k once
    python bench/bench_queries_sparql.py --papers 5000 --out /tmp/kg-bench-5k
"""

from __future__ import annotations

import argparse
import json
import os
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
    from kg.model import KnowledgeGraph
    from kg.readers import read_corpus
    from kg.store import MODEL, write_manifest, write_rdf

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
    from kg.store import load_model, write_rdf

    t = time.perf_counter()
    n = write_rdf(load_model(out), out)
    print(f"rewrote {out} RDF: {n} triples in {time.perf_counter() - t:.0f} s", file=sys.stderr)


def timed(fn, *args, repeat: int, **kwargs) -> list[float]:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn(*args, **kwargs)
        times.append(time.perf_counter() - t)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--papers", type=int, default=20_000)
    parser.add_argument("--out", type=Path, default=Path("/tmp/kg-bench-20k"))
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--rebuild", action="store_true")
    parser.add_argument("--no-python", action="store_true", help="Skip the Python engine.")
    args = parser.parse_args()

    from kg.store import load_model, open_store
    from queries import python as qpy
    from queries import sparql as qs

    if args.rebuild or not (args.out / "model.json").exists():
        build_large(args.out, args.papers)
    elif not (args.out / "store").exists():  # model kept, RDF form changed: rewrite it only
        rewrite_rdf(args.out)
    store = open_store(args.out)
    t = time.perf_counter()
    kg = load_model(args.out)
    load = time.perf_counter() - t
    stats = qpy.stats(kg)
    by_df = sorted(kg.concept_papers, key=lambda c: (-len(kg.concept_papers[c]), c))
    common = [kg.concepts[c].label for c in by_df[:2]]
    rare = [kg.concepts[c].label for c in by_df[len(by_df) // 2: len(by_df) // 2 + 2]]
    pids = sorted(kg.papers)
    papers = [pids[0], pids[len(pids) // 2], pids[-1]]
    cases = {
        "papers_for_concept (common)": ("papers_for_concept", [(c,) for c in common]),
        "papers_for_concept (rare)": ("papers_for_concept", [(c,) for c in rare]),
        "paper": ("paper", [(p,) for p in papers]),
        "related_papers": ("related_papers", [(p,) for p in papers]),
        "cooccurring (common)": ("cooccurring", [(c,) for c in common]),
        "cooccurring (rare)": ("cooccurring", [(c,) for c in rare]),
        "concept_path": ("concept_path", [(common[0], rare[0]), (rare[0], rare[1]),
                                          (common[1], rare[1])]),
        "stats": ("stats", [()]),
    }
    print(f"graph: {stats['papers']} papers, {stats['concepts']} concepts, "
          f"{stats['mentions']} mentions; cpus: {os.cpu_count()}; "
          f"model.json load {load:.1f} s; repeat {args.repeat}")
    print(f"common concepts: {common} ({len(kg.concept_papers[by_df[0]])} papers); "
          f"rare: {rare}")
    header = f"{'helper':<28} {'sparql median':>14} {'sparql max':>11} {'per s':>7}"
    if not args.no_python:
        header += f" {'python median':>14} {'ratio':>6}"
    print(header)
    results = {}
    for name, (helper, calls) in cases.items():
        sparql_times, python_times = [], []
        for call in calls:
            try:
                sparql_times += timed(getattr(qs, helper), store, *call, repeat=args.repeat)
                if not args.no_python:
                    python_times += timed(getattr(qpy, helper), kg, *call, repeat=args.repeat)
            except Exception as e:  # noqa: BLE001 - a bench reports and goes on
                print(f"  {helper}{call}: {e}", file=sys.stderr)
        med = statistics.median(sparql_times)
        line = f"{name:<28} {med * 1000:>11.1f} ms {max(sparql_times) * 1000:>8.1f} ms " \
               f"{1 / med:>7.1f}"
        results[name] = {"sparql_median_s": med, "sparql_max_s": max(sparql_times)}
        if python_times:
            pmed = statistics.median(python_times)
            line += f" {pmed * 1000:>11.1f} ms {med / pmed:>6.1f}"
            results[name]["python_median_s"] = pmed
        print(line)
    print(json.dumps(results), file=sys.stderr)


if __name__ == "__main__":
    main()
