"""`kg build` at scale: wall time and peak RSS per phase, the Python engine over the result.

    python bench/bench_scale.py --papers 20000                 # writes /tmp/kg-scale-20000.jsonl
    python bench/bench_scale.py --corpus FILE.jsonl --out OUT  # any corpus
    python bench/bench_scale.py --papers 20000 --incremental 3 # + 3 x 10 abstracts, store sizes

The corpus is ``make_corpus.py``'s recombined one (no text repeated; new coined names keep
the vocabulary growing). The build (from scratch) runs in this process, as ``kg build``
does; a sampler (another process) reads the RSS of this process and of every process it
forks (extraction workers, the child that writes ``model.json``, ``model.sqlite`` and the
page) every 0.1 s, and the
phases are marked by wrapping the functions that run them (in whichever process runs
them). For each phase: wall time, the peak RSS of the largest process (what
``/usr/bin/time`` reports for a whole run) and of all of them together (forked children
share pages with their parent until they write to them, so the sum over-counts).

With ``--whole-model``: reading the whole model from ``model.sqlite`` (as ``kg viz``,
``kg export`` and ``kg push`` do) next to parsing ``model.json``, and ``kg viz OUT``.

Then ``kg papers OUT --concept X --engine python`` as a user runs it, under
``/usr/bin/time``: whole-process wall time and peak RSS (best of 3), for the busiest
concept and a rare one. With ``--incremental N``: N builds of 10 more abstracts each into
the same OUT, the store's size after each, and a fresh build's store for comparison.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from make_corpus import recombined  # noqa: E402


def sample(pid: int, path: Path, every: float = 0.1) -> None:
    """Append the RSS of ``pid`` and its descendants to ``path`` every ``every`` s, until it
    ends. A process of its own: a thread in the build would stop it forking (the build
    runs in one process when other threads are about)."""
    me = psutil.Process(pid)
    with path.open("w") as f:
        while me.is_running():
            rss = {}
            try:
                procs = [me, *me.children(recursive=True)]
            except psutil.Error:
                break
            for p in procs:
                if p.pid != os.getpid():  # the sampler is a child of the build too
                    with contextlib.suppress(psutil.Error):
                        rss[p.pid] = p.memory_info().rss
            f.write(json.dumps([time.time(), rss]) + "\n")
            f.flush()
            time.sleep(every)


MARKS: Path = Path(f"/tmp/kg-bench-phases-{os.getpid()}.jsonl")  # one per run: runs may overlap


def _marked(name: str, fn):
    def wrapper(*args, **kwargs):
        with MARKS.open("a") as f:
            f.write(json.dumps([name, "start", time.time(), os.getpid()]) + "\n")
        try:
            return fn(*args, **kwargs)
        finally:
            with MARKS.open("a") as f:
                f.write(json.dumps([name, "end", time.time(), os.getpid()]) + "\n")
    return wrapper


def instrument() -> None:
    """Mark the phases of a build (the functions it calls, wrapped where it looks them up)."""
    import extractors.pipeline as pipeline
    import kg.build as build
    import visualizations.views as views
    from kg.core.model import KnowledgeGraph
    from kg.stores.spill import Spill

    build.read_corpus = _marked("read", build.read_corpus)
    build.write_rdf = _marked("write graph.ttl + store", build.write_rdf)
    build.write_model_index = _marked("write model.sqlite", build.write_model_index)
    KnowledgeGraph.save = _marked("write model.json", KnowledgeGraph.save)
    # a build streams the model from its spill file (kg.stores.spill) to these two
    Spill.write_index = _marked("write model.sqlite", Spill.write_index)
    Spill.write_json = _marked("write model.json", Spill.write_json)
    views.default_page = _marked("page", views.default_page)
    pipeline.build_registry = _marked("lexicon + acronyms", pipeline.build_registry)
    pipeline.make_pipeline = _marked("load spaCy pipeline", pipeline.make_pipeline)
    pipeline.resolve_corpus = _marked("consolidate", pipeline.resolve_corpus)
    pipeline.corpus_relations = _marked("relations", pipeline.corpus_relations)


def phases(samples, marks) -> list[dict]:
    rows = []
    starts = {}
    # extraction runs while extract_corpus iterates over the workers' results: between
    # loading the pipeline and consolidating
    ends = {m[0]: m[2] for m in marks if m[1] == "end"}
    begins = {m[0]: m[2] for m in marks if m[1] == "start"}
    if "load spaCy pipeline" in ends and "consolidate" in begins:
        marks = [*marks, ["extract (workers)", "start", ends["load spaCy pipeline"], 0],
                 ["extract (workers)", "end", begins["consolidate"], 0]]
        marks.sort(key=lambda m: (m[2], m[1] == "start"))
    for name, what, t, pid in marks:
        if what == "start":
            starts.setdefault(name, (t, pid))
            continue
        t0, _ = starts.pop(name, (t, pid))
        window = [rss for ts, rss in samples if t0 <= ts <= t] or \
            [min(samples, key=lambda s: abs(s[0] - t))[1]]
        rows.append({"phase": name, "s": round(t - t0, 1),
                     "largest MB": max(max(r.values()) for r in window) // 2**20,
                     "all MB": max(sum(r.values()) for r in window) // 2**20})
    return rows


def build_measured(corpus: Path, out: Path) -> tuple[list[dict], float, float, int]:
    from kg.build import build

    MARKS.unlink(missing_ok=True)
    rss_file = Path(f"/tmp/kg-bench-rss-{os.getpid()}.jsonl")
    sampler = subprocess.Popen([sys.executable, __file__, "--sample", str(os.getpid()),
                                str(rss_file)])
    time.sleep(1)
    t, cpu = time.time(), _cpu()
    build([corpus], out, page=True)
    wall, cpu = time.time() - t, _cpu() - cpu
    time.sleep(0.3)
    sampler.terminate()
    sampler.wait()
    samples = []
    for line in rss_file.read_text().splitlines():
        with contextlib.suppress(ValueError):  # the last line may be cut short
            ts, rss = json.loads(line)
            samples.append((ts, {int(k): v for k, v in rss.items()}))
    marks = [json.loads(line) for line in MARKS.read_text().splitlines()]
    peak = max(max(r.values()) for ts, r in samples if t <= ts <= t + wall)
    return phases(samples, marks), wall, cpu, peak


def _cpu() -> float:
    """User + system CPU seconds of this process and of its children that ended (the
    extraction workers and the writer child; the sampler has not ended yet)."""
    import resource

    me, kids = (resource.getrusage(w) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def _time_v(args: list[str]) -> tuple[float, int, float]:
    """Wall seconds, peak RSS (MB) and CPU seconds (user + sys) of a command."""
    proc = subprocess.run(["/usr/bin/time", "-v", *args], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    wall = re.search(r"Elapsed \(wall clock\) time.*: (?:(\d+):)?(\d+):([\d.]+)", proc.stderr)
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", proc.stderr)
    cpu = re.findall(r"(?:User|System) time \(seconds\): ([\d.]+)", proc.stderr)
    assert proc.returncode == 0 and wall and rss, proc.stderr[-500:]
    h, m, s = wall.groups()
    return (int(h or 0) * 3600 + int(m) * 60 + float(s), int(rss.group(1)) // 1024,
            sum(float(c) for c in cpu))


def python_engine_queries(out: Path) -> list[dict]:
    con = sqlite3.connect(out / "model.sqlite")
    by_df = con.execute("SELECT concept, COUNT(*) n FROM links GROUP BY concept "
                        "ORDER BY n DESC, concept").fetchall()
    labels = dict((cid, json.loads(d)["label"])
                  for cid, d in con.execute("SELECT id, data FROM concepts"))
    con.close()
    rows = []
    for what, (cid, df) in (("busiest", by_df[0]), ("median", by_df[len(by_df) // 2])):
        for fmt in ("table", "json", "csv"):  # table: the default, stdout not a terminal
            runs = [_time_v([sys.executable, "-m", "kg", "papers", str(out), "--concept",
                             labels[cid], "--engine", "python", "--format", fmt])
                    for _ in range(3)]
            wall, rss, cpu = min(runs)
            rows.append({"concept": f"{what}: {labels[cid]} ({df} papers)", "format": fmt,
                         "wall s (best of 3)": round(wall, 2), "CPU s": round(cpu, 2),
                         "peak RSS MB": rss})
    return rows


def store_mb(out: Path) -> float:
    return sum(f.stat().st_size for f in (out / "store").iterdir()) / 1e6


def incremental(corpus: Path, out: Path, rounds: int, papers: int) -> list[dict]:
    extra = list(recombined(papers + 10 * rounds))[papers:]
    grown = corpus.with_suffix(".grown.jsonl")
    shutil.copy(corpus, grown)
    from kg.build import build

    rows = [{"build": f"{papers} papers, from scratch", "store MB": round(store_mb(out), 1)}]
    for r in range(rounds):
        with grown.open("a", encoding="utf-8") as f:
            for rec in extra[10 * r:10 * r + 10]:
                f.write(json.dumps(rec, ensure_ascii=False) + "\n")
        t = time.time()
        build([grown], out, page=False)
        rows.append({"build": f"+10 abstracts (round {r + 1})", "s": round(time.time() - t, 1),
                     "store MB": round(store_mb(out), 1)})
    fresh = out.with_name(out.name + "-fresh")
    t = time.time()
    build([grown], fresh, page=False, incremental=False)
    rows.append({"build": "the same corpus, fresh", "s": round(time.time() - t, 1),
                 "store MB": round(store_mb(fresh), 1)})
    return rows


def model_bytes(out: Path) -> list[dict]:
    """What the in-memory model of ``OUT/model.json`` holds, per part and per paper
    (tracemalloc: Python allocations only), with the views a build computes."""
    import gc
    import tracemalloc

    from kg.core.model import KnowledgeGraph

    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    data = json.loads((out / "model.json").read_text(encoding="utf-8"))
    kg = KnowledgeGraph.from_json(data)
    del data
    gc.collect()
    n = len(kg.papers)
    rows = []
    now = tracemalloc.get_traced_memory()[0]
    rows.append({"part": f"model ({n} papers, {len(kg.mentions)} mentions, "
                         f"{len(kg.relations)} relations, {len(kg.concepts)} concepts)",
                 "MB": round((now - base) / 1e6, 1), "bytes/paper": (now - base) // n})
    for view in ("mentions_by_paper", "paper_concepts", "concept_papers", "first_evidence",
                 "relation_edges", "relations_by_paper"):
        before = tracemalloc.get_traced_memory()[0]
        getattr(kg, view)
        gc.collect()
        grown = tracemalloc.get_traced_memory()[0] - before
        rows.append({"part": view, "MB": round(grown / 1e6, 1), "bytes/paper": grown // n})
    total = tracemalloc.get_traced_memory()[0] - base
    rows.append({"part": "all", "MB": round(total / 1e6, 1), "bytes/paper": total // n})
    tracemalloc.stop()
    return rows


def whole_model(out: Path, rounds: int = 2) -> list[dict]:
    """Reading the whole model of ``OUT`` as ``kg viz``, ``kg export`` and ``kg push`` do
    (``load_model``: from ``model.sqlite``) next to parsing ``model.json``, alternating, and
    ``kg viz OUT`` itself; each a whole process under ``/usr/bin/time``."""
    read = {
        "model.json (KnowledgeGraph.load)":
            "from pathlib import Path; from kg.core.model import KnowledgeGraph; "
            f"KnowledgeGraph.load(Path({str(out)!r}) / 'model.json')",
        "model.sqlite (load_model)":
            f"from kg.stores.out import load_model; load_model({str(out)!r})",
    }
    rows = []
    for r in range(rounds):
        for what, code in read.items():
            wall, rss, cpu = _time_v([sys.executable, "-c", code])
            rows.append({"round": r + 1, "what": f"read the whole model from {what}",
                         "wall s": round(wall, 1), "CPU s": round(cpu, 1), "peak RSS MB": rss})
    page = out.with_name(out.name + "-viz.html")
    wall, rss, cpu = _time_v([sys.executable, "-m", "kg", "viz", str(out), "-o", str(page)])
    page.unlink(missing_ok=True)
    rows.append({"round": 1, "what": "kg viz OUT (the default page)", "wall s": round(wall, 1),
                 "CPU s": round(cpu, 1), "peak RSS MB": rss})
    return rows


def table(rows: list[dict]) -> str:
    keys = list(dict.fromkeys(k for r in rows for k in r))
    lines = ["| " + " | ".join(keys) + " |", "|" + "---|" * len(keys)]
    lines += ["| " + " | ".join(str(r.get(k, "")) for k in keys) + " |" for r in rows]
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--papers", type=int, default=20_000)
    ap.add_argument("--corpus", type=Path)
    ap.add_argument("--out", type=Path)
    ap.add_argument("--incremental", type=int, default=0, metavar="N")
    ap.add_argument("--no-build", action="store_true", help="measure an existing --out")
    ap.add_argument("--model-bytes", action="store_true",
                    help="also the in-memory model's size per part (tracemalloc)")
    ap.add_argument("--whole-model", action="store_true",
                    help="also reading the whole model (model.sqlite vs model.json) and kg viz")
    ap.add_argument("--sample", nargs=2, metavar=("PID", "FILE"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.sample:
        sample(int(args.sample[0]), Path(args.sample[1]))
        return
    corpus = args.corpus or Path(f"/tmp/kg-scale-{args.papers}.jsonl")
    if not corpus.exists():
        with corpus.open("w", encoding="utf-8") as f:
            for r in recombined(args.papers):
                f.write(json.dumps(r, ensure_ascii=False) + "\n")
    out = args.out or Path(f"/tmp/kg-scale-{args.papers}-out")
    print(f"load average before: {os.getloadavg()}", flush=True)
    if not args.no_build:
        shutil.rmtree(out, ignore_errors=True)
        instrument()
        rows, wall, cpu, peak = build_measured(corpus, out)
        print(table(rows))
        print(f"\nbuild: {wall:.1f} s wall, {cpu:.1f} CPU-s (user + sys), "
              f"peak RSS (largest process) {peak // 2**20} MB, "
              f"OUT {sum(f.stat().st_size for f in out.rglob('*') if f.is_file()) / 1e6:.0f} MB")
    if args.model_bytes:
        print()
        print(table(model_bytes(out)))
    if args.whole_model:
        print()
        print(table(whole_model(out)))
    print()
    print(table(python_engine_queries(out)))
    if args.incremental:
        print()
        print(table(incremental(corpus, out, args.incremental, args.papers)))
    print(f"\nload average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
