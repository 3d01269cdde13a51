"""The store's bulk loader on its own: ``OUT/graph.ttl`` loaded into a fresh store in pieces.

    python bench/bench_store_load.py OUT STORE [--bytes B] [--triples T] [--no-trim]

Loads with :func:`kg.stores.out.bulk_load_pieces` (what an incremental build that reloads
does; a build from scratch cuts the same way while it writes, :class:`kg.stores.out`'s
``_StoreLoad``) and prints this process's peak PSS, sampled every 50 ms from
``/proc/self/smaps_rollup`` (Linux) by a thread (the loader runs without Python's lock),
with the CPU time, the store's size on disk and its number of SST files. ``--triples``
very large gives the pieces bounded by bytes alone (the code before 2026-12-02's twelfth
session); ``--no-trim`` leaves glibc the loader's free pages between pieces.
"""

from __future__ import annotations

import argparse
import os
import shutil
import threading
import time
from pathlib import Path

import pyoxigraph as ox

from kg.core import collect
from kg.stores import out as out_module
from kg.stores.rdf_file import TurtleIndex


def _rollup() -> dict[str, int]:
    values = {}
    with open("/proc/self/smaps_rollup") as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 3 and parts[0].endswith(":"):
                values[parts[0][:-1]] = int(parts[1])
    return values


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("store", type=Path, help="a folder to (re)create")
    ap.add_argument("--bytes", type=int, default=out_module.BULK_LOAD_BYTES)
    ap.add_argument("--triples", type=int, default=out_module.BULK_LOAD_TRIPLES)
    ap.add_argument("--no-trim", action="store_true")
    a = ap.parse_args()
    index = TurtleIndex.read(a.out)
    if index is None:
        raise SystemExit(f"{a.out}: no graph-index.json that matches graph.ttl")
    shutil.rmtree(a.store, ignore_errors=True)
    if a.no_trim:
        out_module.return_free_pages = lambda: None  # type: ignore[attr-defined]
    loads = [0]
    peak = {"Pss": 0}
    done = threading.Event()

    def sample() -> None:
        while not done.is_set():
            now = _rollup()
            if now["Pss"] > peak["Pss"]:
                peak.update(now)
            time.sleep(0.05)

    class Counting:
        def __init__(self, store: ox.Store) -> None:
            self.store = store

        def bulk_load(self, *args: object, **options: object) -> None:
            loads[0] += 1
            self.store.bulk_load(*args, **options)  # type: ignore[arg-type]

    threading.Thread(target=sample, daemon=True).start()
    start = _rollup()["Pss"]
    store = ox.Store(str(a.store))
    wall, cpu = time.time(), time.process_time()
    out_module.bulk_load_pieces(Counting(store), a.out / "graph.ttl", index,  # type: ignore[arg-type]
                                limit=a.bytes, triples=a.triples)
    store.flush()
    wall, cpu = time.time() - wall, time.process_time() - cpu
    end = _rollup()["Pss"]
    done.set()
    del store
    collect.return_free_pages()
    files = [f for f in a.store.iterdir() if f.is_file()]
    size = sum(f.stat().st_size for f in files)
    triples = index.corpus.triples + sum(b.triples for b in index.papers.values())
    print(f"loads={loads[0]} triples={triples} "
          f"start={start / 1024:.0f}MB peak_pss={peak['Pss'] / 1024:.0f}MB "
          f"anon={peak.get('Pss_Anon', 0) / 1024:.0f}MB end={end / 1024:.0f}MB "
          f"cpu={cpu:.1f}s wall={wall:.1f}s store={size / 2**20:.0f}MB "
          f"sst={sum(f.suffix == '.sst' for f in files)} load={os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
