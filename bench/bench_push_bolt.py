"""Push rate over Bolt and Cypher helper latency (run on demand, not in the test suite).

    python bench/bench_push_bolt.py                 # NeurIPS 2018, local ArcadeDB server
    python bench/bench_push_bolt.py --copies 20     # ~20k papers: the model repeated with fresh ids
    python bench/bench_push_bolt.py --uri bolt://… --password …   # another server (e.g. Neo4j)

Builds ../shared/data/neurips2018.jsonl (or reads --out), starts a local server
unless --uri is given, pushes twice (first push, then an idempotent re-push),
and times each Cypher helper (median of --repeat runs).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data" / "neurips2018.jsonl"


def replicated(kg, copies: int):
    """``kg`` with its papers and mentions repeated ``copies`` times under fresh ids."""
    from kg.core.model import KnowledgeGraph

    if copies <= 1:
        return kg
    papers, mentions = {}, []
    for k in range(copies):
        for pid, p in kg.papers.items():
            papers[f"{pid}~{k}"] = replace(p, id=f"{pid}~{k}")
        mentions += [replace(m, paper=f"{m.paper}~{k}") for m in kg.mentions]
    return KnowledgeGraph(papers=papers, concepts=kg.concepts, mentions=mentions)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, help="a built OUT (default: build NeurIPS 2018)")
    ap.add_argument("--copies", type=int, default=1)
    ap.add_argument("--batch-size", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--uri")
    ap.add_argument("--user")
    ap.add_argument("--password")
    ap.add_argument("--database")
    args = ap.parse_args()

    import queries as q
    from kg.stores.bolt import connect, counts, push
    from kg.stores.bolt_server import start_server, stop_server
    from kg.stores.out import load_model
    from queries.cypher import CypherEngine

    tmp = Path(tempfile.mkdtemp(prefix="bench-bolt-"))
    out = args.out
    if out is None:
        from kg.build import build

        out = tmp / "out"
        t = time.monotonic()
        build([DATA], out, page=False)
        print(f"built {DATA.name} in {time.monotonic() - t:.1f} s")
    kg = replicated(load_model(out), args.copies)
    server = None
    if args.uri:
        graph = connect(args.uri, user=args.user, password=args.password,
                        database=args.database)
    else:
        server = start_server(tmp / "arcadedb", heap="2g")
        graph = connect(server.uri, user=server.user, password=server.password,
                        database=server.database)
    try:
        for label, kw in (("first push", {"replace": True}), ("re-push", {})):
            t = time.monotonic()
            written = push(kg, graph, batch_size=args.batch_size, **kw)
            took = time.monotonic() - t
            rows = sum(written.values())
            print(f"{label}: {rows} rows in {took:.1f} s = {rows / took:,.0f} rows/s  {written}")
        print("graph:", counts(graph))
        top = sorted(kg.concept_papers, key=lambda c: -len(kg.concept_papers[c]))
        busy, rare = kg.concepts[top[0]].label, kg.concepts[top[len(top) // 2]].label
        pid = sorted(kg.papers)[len(kg.papers) // 2]
        engine = CypherEngine(graph)
        cases = {
            "papers_for_concept (busiest)": lambda: q.papers_for_concept(engine, busy),
            "papers_for_concept (median)": lambda: q.papers_for_concept(engine, rare),
            "paper": lambda: q.paper(engine, pid),
            "related_papers": lambda: q.related_papers(engine, pid),
            "cooccurring (busiest)": lambda: q.cooccurring(engine, busy),
            "concept_path": lambda: q.concept_path(engine, busy, rare),
            "stats": lambda: q.stats(engine),
        }
        for name, fn in cases.items():
            fn()  # warm up (and the concept cache)
            times = []
            for _ in range(args.repeat):
                t = time.perf_counter()
                fn()
                times.append(time.perf_counter() - t)
            print(f"{name:32s} median {statistics.median(times) * 1000:7.1f} ms")
    finally:
        graph.close()
        if server is not None:
            stop_server(server)


if __name__ == "__main__":
    main()
