"""`kg build` with phase markers in its extraction process (issue 17).

    PYTHONPATH=. python bench/extraction_phases.py [--trace] IN OUT [kg build options]

Prints, for each phase of the extraction process (text cache read and written, extraction,
``resolve_corpus`` and its passes (``resolve``, ``propagate``, the name pass,
``extend_cut_terms``, the termhood filter's ``apply``, ...), ``corpus_relations``,
``link_graph``, the page, the link count, the spill file): its wall time, the process's PSS
at its start and end and the largest PSS sampled (every 0.1 s) while it ran. With
``--trace``, tracemalloc runs in the extraction process from the moment its workers are
up, and the Python lines holding the most memory are printed at the points ``SNAP_AT``
names (``name<``: at the start of the function, ``name>``: at its end; ``TOP`` lines
each). PSS under ``--trace`` includes tracemalloc's own tables.
"""

from __future__ import annotations

import functools
import linecache
import os
import sys
import threading
import time
import tracemalloc

import extractors.acceptance as acceptance
import extractors.consolidate as consolidate
import extractors.pipeline as pipeline
import extractors.relation_links as relation_links
import extractors.text_cache as text_cache
import extractors.workers as workers
import kg.build as build
import kg.stores.graph as graph
import visualizations.views as views
from kg.cli import main as kg_main

TOP = int(os.environ.get("TOP", "25"))
SNAP_AT = os.environ.get("SNAP_AT", "resolve_corpus<,resolve_corpus>,dump_spill<").split(",")
_state: dict = {"phase": "start", "max": {}, "t0": time.time(), "pid": None}


def _pss() -> float:
    with open("/proc/self/smaps_rollup") as f:
        for line in f:
            if line.startswith("Pss:"):
                return int(line.split()[1]) / 1024
    return 0.0


def _sample() -> None:
    while True:
        p, phase = _pss(), _state["phase"]
        if p > _state["max"].get(phase, 0):
            _state["max"][phase] = p
        time.sleep(0.1)


def _start_sampling() -> None:
    """A sampling thread in this process (the extraction process is forked: once there)."""
    if _state["pid"] != os.getpid():
        _state["pid"], _state["max"] = os.getpid(), {}
        threading.Thread(target=_sample, daemon=True).start()


def _log(msg: str) -> None:
    print(f"[phase {time.time() - _state['t0']:7.1f}s pid {os.getpid()}] {msg}",
          file=sys.stderr, flush=True)


def _snapshot(tag: str) -> None:
    snap = tracemalloc.take_snapshot().filter_traces(
        [tracemalloc.Filter(False, tracemalloc.__file__)])
    stats = snap.statistics("lineno")
    _log(f"SNAPSHOT {tag}: traced {sum(x.size for x in stats) / 2**20:.1f} MB "
         f"in {sum(x.count for x in stats)} blocks")
    for x in stats[:TOP]:
        frame = x.traceback[0]
        line = linecache.getline(frame.filename, frame.lineno).strip()[:90]
        where = "/".join(frame.filename.split("/")[-2:])
        print(f"   {x.size / 2**20:7.2f} MB {x.count:8d}  {where}:{frame.lineno}  {line}",
              file=sys.stderr)


def _maxima() -> str:
    return ", ".join(f"{k}={v:.0f}" for k, v in _state["max"].items())


def _wrap(module: object, name: str, trace: bool) -> None:
    original = getattr(module, name)

    @functools.wraps(original)
    def phase(*args, **kwargs):  # type: ignore[no-untyped-def]
        _start_sampling()
        outer, _state["phase"] = _state["phase"], name
        if trace and tracemalloc.is_tracing():
            tracemalloc.reset_peak()
            if name + "<" in SNAP_AT:
                _snapshot(name + " entry")
        _log(f"> {name} pss {_pss():.0f} MB")
        start = time.time()
        try:
            return original(*args, **kwargs)
        finally:
            extra = ""
            if trace and tracemalloc.is_tracing():
                current, peak = tracemalloc.get_traced_memory()
                extra = f" traced {current / 2**20:.1f} peak {peak / 2**20:.1f} MB"
                if name + ">" in SNAP_AT:
                    _snapshot(name + " exit")
            _log(f"< {name} {time.time() - start:.1f}s pss {_pss():.0f} MB "
                 f"max-in-phase {_state['max'].get(name, 0):.0f} MB{extra}")
            _state["phase"] = outer

    setattr(module, name, phase)


def main() -> None:
    trace = "--trace" in sys.argv
    args = [a for a in sys.argv[1:] if a != "--trace"]
    if trace:
        enter = workers.Workers.__enter__

        def traced_enter(self):  # type: ignore[no-untyped-def]
            got = enter(self)
            _start_sampling()
            tracemalloc.start(int(os.environ.get("FRAMES", "1")))
            _log("tracemalloc started")
            return got

        workers.Workers.__enter__ = traced_enter  # type: ignore[method-assign]
    for module, names in ((pipeline, ("extract_corpus", "resolve_corpus", "corpus_relations")),
                          (relation_links, ("link_graph",)), (views, ("default_page",)),
                          (graph, ("paper_link_count",)), (build, ("dump_spill",)),
                          (text_cache, ("read", "write")),
                          (consolidate, ("resolve", "_drop_untrusted_acronyms",
                                         "_assign_new_terms", "_add_domain_words", "propagate",
                                         "_label_by_use", "_name_mentions", "extend_cut_terms",
                                         "_type_by_context")),
                          (acceptance.TermAcceptance, ("apply",))):
        for name in names:
            _wrap(module, name, trace)
    dump = build._dump

    def dumped(*a, **k):  # type: ignore[no-untyped-def]
        got = dump(*a, **k)
        _log(f"the spill written; largest PSS per phase (MB): {_maxima()}")
        return got

    build._dump = dumped
    inp, out, *rest = args
    sys.argv = ["kg", "build", inp, "-o", out, *rest]
    kg_main()


if __name__ == "__main__":
    main()
