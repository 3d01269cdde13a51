"""``kg build``: read abstracts, extract concepts, write every output into ``OUT``.

The build writes into a temporary sibling folder (``.OUT.tmp-PID-*``) and swaps
it in only when everything succeeded, so a failed or interrupted build leaves
the previous ``OUT`` as it was. The swap is two renames with SIGINT/SIGTERM held
off in between; leftovers of a build that was killed outright (``kill -9``,
power loss) are cleaned up by the next build into the same ``OUT``.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import re
import shutil
import signal
import sys
import tempfile
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from functools import cached_property, partial
from pathlib import Path
from typing import BinaryIO

from extractors import text_cache
from kg.core.collect import fewer_collections, release_free_memory, return_free_pages
from kg.core.errors import Messages, OutputError
from kg.core.layout import MANIFEST, MODEL, MODEL_DB, PAGE, STORE, TURTLE
from kg.core.model import KnowledgeGraph
from kg.core.processes import file_mode_mask, kill_and_reap, pid_alive, run_apart
from kg.core.readers import ReadReport, read_corpus
from kg.core.version import __version__
from kg.stores.model_index import write_model_index
from kg.stores.out import load_model, write_manifest, write_rdf
from kg.stores.spill import Spill, dump_spill, load_spill

__all__ = ["BuildResult", "build"]


@dataclass
class BuildResult:
    """What a build produced.

    The build does not hold the model it wrote (its writers stream it from disk):
    :attr:`graph` reads it from ``out`` when first asked for. ``report`` is what reading
    the inputs found (skipped records, duplicates, warnings); its papers are the model's
    (``result.graph.papers``), not kept twice.
    """

    out: Path
    report: ReadReport
    triples: int
    links: int
    #: papers, concepts, mentions, paper–concept links and relation edges of the model
    counts: dict[str, int]

    @cached_property
    def graph(self) -> KnowledgeGraph:
        """The model built, read from ``out`` (:func:`kg.stores.out.load_model`)."""
        return load_model(self.out)

    def summary(self) -> dict:
        """Counts for the one-line summary and ``manifest.json``."""
        c = self.counts
        return {
            "papers": c["papers"],
            "concepts": c["concepts"],
            "mentions": c["mentions"],
            "paper_concept_links": c["paper_concept_links"],
            "paper_paper_links": self.links,
            "relations": c["relations"],
            "triples": self.triples,
            "skipped_records": len(self.report.skipped),
            "duplicate_records": self.report.duplicates,
        }


def _counts(model: KnowledgeGraph | Spill) -> dict[str, int]:
    """The model's totals for :class:`BuildResult`."""
    if isinstance(model, Spill):
        return {k: model.meta[k] for k in ("papers", "concepts", "mentions",
                                           "paper_concept_links", "relations")}
    return {"papers": len(model.papers), "concepts": len(model.concepts),
            "mentions": len(model.mentions),
            "paper_concept_links": sum(len(c) for c in model.paper_concepts.values()),
            "relations": len(model.relation_edges)}


def _check_out(out: Path) -> None:
    """Refuse an ``out`` that is a file, or a folder of something else that we would delete."""
    if out.is_symlink() or out.exists():
        if not out.is_dir():
            raise OutputError(Messages.OUT_IS_FILE.format(out=out))
        if not (out / MANIFEST).is_file() and any(out.iterdir()):
            raise OutputError(Messages.OUT_NOT_OURS.format(out=out))
    parent = out.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if not parent.is_dir():
        raise OutputError(Messages.OUT_NOT_WRITABLE.format(
            out=out, detail=f"{parent} is a file, not a folder"))
    if not os.access(parent, os.W_OK | os.X_OK):
        raise OutputError(Messages.OUT_NOT_WRITABLE.format(
            out=out, detail=f"no permission to write in {parent}"))


def _os_detail(e: OSError) -> str:
    detail = e.strerror or str(e)
    return f"{detail} ({e.filename})" if e.filename else detail


def _clean_leftovers(out: Path) -> None:
    """Remove the temporary folders of earlier builds into ``out`` that were killed.

    Only folders whose process is gone are touched. If ``out`` itself is
    missing but a killed build had just moved it aside (``.OUT.old-PID``), it
    is moved back first.
    """
    if not out.parent.is_dir():
        return
    pattern = re.compile(rf"\.{re.escape(out.name)}\.(tmp|old)-(\d+)(-.*)?")
    for entry in sorted(out.parent.iterdir()):
        m = pattern.fullmatch(entry.name)
        if m is None or not entry.is_dir() or pid_alive(int(m.group(2))):
            continue
        if m.group(1) == "old" and not out.exists():
            os.replace(entry, out)
        else:
            shutil.rmtree(entry, ignore_errors=True)


@contextlib.contextmanager
def _signals_held() -> Iterator[list[int]]:
    """Hold SIGINT and SIGTERM off for the block; yields the list of signals that came.

    Only the main thread may set signal handlers; elsewhere this does nothing.
    """
    caught: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield caught
        return
    held = (signal.SIGINT, signal.SIGTERM)
    previous = {s: signal.getsignal(s) for s in held}
    for s in held:
        signal.signal(s, lambda signum, _frame: caught.append(signum))
    try:
        yield caught
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)


def _swap_in(tmp: Path, out: Path) -> None:
    """Replace ``out`` by ``tmp`` with two renames; the old folder is removed last.

    If the second rename fails, the old ``out`` is put back before the error
    goes on. A signal that arrives during the swap is held until it is done;
    the build then counts as finished (``out`` is the new graph).
    """
    with _signals_held():
        old = None
        if out.exists():
            old = out.with_name(f".{out.name}.old-{os.getpid()}")
            os.replace(out, old)
        try:
            os.replace(tmp, out)
        except BaseException:
            if old is not None:
                os.replace(old, out)
            raise
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)


def _write_files(model: KnowledgeGraph | Spill, out: Path) -> None:
    """``model.json`` and ``model.sqlite``."""
    if isinstance(model, Spill):
        model.write_json(out / MODEL)
        model.write_index(out / MODEL_DB)
    else:
        model.save(out / MODEL)
        write_model_index(model, out / MODEL_DB)


def _fork(work: Callable[[], object]) -> int | None:
    """Run ``work`` in a forked child; its pid, or ``None`` once it has run here.

    The files and the RDF are both Python-bound, so a thread would not overlap them;
    a child process does, and it shares the model copy-on-write.
    """
    if not hasattr(os, "fork") or threading.active_count() > 1:
        work()
        return None
    # Ctrl-C reaches the whole process group: blocked until the child ignores it, or the
    # child could unwind through the parent's code as if it were the parent
    held = {signal.SIGINT, signal.SIGTERM}
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    try:
        pid = os.fork()
    except BaseException:
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
        raise
    if pid != 0:
        try:  # an interruption that came since the fork is raised here: end the child too
            signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
        except BaseException:
            _stop(pid)
            raise
    else:  # the child: work, then leave without running the parent's cleanup
        status = 1
        try:
            signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
            work()
            status = 0
        finally:
            os._exit(status)
    return pid


def _wait(pid: int | None) -> bool:
    """Wait for the child (killed if we are interrupted meanwhile). ``True`` if it succeeded."""
    if pid is None:
        return True
    try:
        _, status = os.waitpid(pid, 0)
    except BaseException:
        _stop(pid)
        raise
    return os.waitstatus_to_exitcode(status) == 0


def _stop(pid: int | None) -> None:
    """Kill the child and reap it (a build that is unwinding does not wait for its files)."""
    if pid is not None:
        kill_and_reap(pid)


#: The model extracted in the child process, in the temporary folder until it is read.
_SPILL = ".model.pickle"
#: What reading the inputs found besides the papers (skipped records, warnings), written by
#: the extraction process for the build's own (:func:`_read_report`).
_REPORT = ".read-report.pickle"


def _extract(inputs: ReadReport | Callable[[], ReadReport], out: Path, tmp: Path, *,
             lexicons: Iterable[str | Path], progress: bool, incremental: bool,
             workers: int | None, scheduler: str | None,
             page: bool) -> tuple[KnowledgeGraph, int]:
    """The model of the papers of ``inputs`` (read by calling it, unless already read) and
    its paper–paper link count; with ``incremental``, the text cache of ``out`` is used and
    the new one written into ``tmp``; with ``page``, ``graph.html`` is written into
    ``tmp``. What reading found besides the papers goes to ``tmp`` (:func:`_read_report`).

    The inputs are read here, in the extraction process: the papers are its (the model's)
    alone, not also the build's own process's, which streams the model to its files from
    the spill and has no use for them (a 100,000-paper corpus is ~0.3 GB of Python
    objects, and the extraction process, touching every one, would make its own copy of
    each page the two processes shared). The page and the link count are made here too,
    where the whole model is."""
    if isinstance(inputs, ReadReport):
        report = inputs
    else:
        report = inputs()
        with open(tmp / _REPORT, "wb") as f:
            # every field but the papers: one added to ReadReport comes back too
            pickle.dump(replace(report, papers=[]), f)
    # spaCy (~0.6 s) and networkx (~0.2 s) only once OUT and the input have been checked:
    # a typo is reported at once
    from extractors.pipeline import extract_corpus
    from extractors.relation_links import link_graph
    from kg.stores.graph import paper_link_count

    cache = text_cache.read(out) if incremental else None
    # the updated cache is written into tmp by extraction itself (it does not go through
    # the spill file), as soon as every text is extracted; the relations stay in their
    # temporary file (the page's edges, the link count and the spill read them through),
    # and so do the papers' titles and abstracts once extracted (report.papers is this
    # process's only list of them: extraction replaces its papers in place)
    graph = extract_corpus(report.papers, lexicons=lexicons, progress=progress, cache=cache,
                           cache_to=tmp if cache is not None else None, workers=workers,
                           scheduler=scheduler, relations_on_disk=True, papers_on_disk=True)
    link_graph(graph)  # relations between spans → between the concepts the graph kept
    return_free_pages()  # (each phase's temporaries: as between resolution's passes)
    if page:
        from visualizations.views import default_page

        try:
            default_page(graph, tmp / PAGE)
        except OSError as e:  # as the other outputs' errors (build)
            raise OutputError(Messages.OUT_NOT_WRITABLE.format(out=out, detail=_os_detail(e))
                              ) from None
        return_free_pages()
    return graph, paper_link_count(graph)


def _read_report(tmp: Path) -> ReadReport:
    """What :func:`_extract` found reading the inputs (its papers are the model's)."""
    with open(tmp / _REPORT, "rb") as f:
        report = pickle.load(f)
    (tmp / _REPORT).unlink()
    return report


def _dump(extracted: tuple[KnowledgeGraph, int], file: BinaryIO) -> None:
    graph, links = extracted
    dump_spill(graph, file, links=links)


@fewer_collections()
def build(
    inputs: Iterable[str | Path] | ReadReport,
    out: str | Path,
    *,
    lexicons: Iterable[str | Path] = (),
    on_error: str = "raise",
    progress: bool = False,
    page: bool = True,
    incremental: bool = True,
    input_format: str | None = None,
    workers: int | None = None,
    scheduler: str | None = None,
) -> BuildResult:
    """Build the knowledge graph of ``inputs`` into the folder ``out``.

    Parameters
    ----------
    inputs : iterable of paths, or ReadReport
        Corpus files (.txt, .jsonl, .csv), or papers already read
        (:func:`kg.core.readers.read_records` for records in memory).
    out : path
        Output folder; replaced as a whole on success. A symbolic link to a folder: that
        folder is replaced, the link stays.
    lexicons : iterable of paths
        Extra SKOS lexicons.
    on_error : {"raise", "skip"}
        What to do with a bad record.
    progress : bool
        Show progress bars on stderr.
    page : bool
        Also write ``graph.html``.
    incremental : bool
        Reuse what an earlier build into ``out`` kept: each text's tokens, sentences,
        coined names and span-model terms (:mod:`extractors.text_cache`), so only new or
        changed texts go through the model, and the RDF blocks of unchanged papers with
        a copy of the store (:mod:`kg.stores.rdf_file`). The result is byte-identical to a build
        from scratch: everything corpus-level is redone.
    input_format : {"txt", "jsonl", "csv"}, optional
        Read every input in this format, whatever its suffix; ``-`` in ``inputs``
        reads standard input (see :func:`kg.core.readers.read_corpus`).
    workers : int, optional
        Extraction processes on a local Dask cluster (1: this process alone); by default
        every core for large corpora, one process for small ones.
    scheduler : str, optional
        Run extraction on the existing Dask cluster of this scheduler
        (``tcp://host:8786``) instead. The output is the same in every case.

    Examples
    --------
    >>> result = build(["examples/neurips2026-abstracts.txt"], "/tmp/kg-doctest")  # doctest: +SKIP
    >>> result.summary()["papers"]  # doctest: +SKIP
    19
    """
    out = Path(out)
    if out.is_symlink():  # build into the folder it names; the link stays as it is
        out = Path(os.path.realpath(out))
    _check_out(out)  # before the slow part: a bad OUT should not cost a whole extraction
    read: ReadReport | Callable[[], ReadReport] = inputs if isinstance(inputs, ReadReport) \
        else partial(read_corpus, inputs, on_error=on_error, input_format=input_format,
                     papers_on_disk=True)
    # folders made for OUT are removed again if the build fails (bad input): a failed build
    # leaves nothing behind
    made = [p for p in (out.parent, *out.parent.parents) if not p.exists()]
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        _clean_leftovers(out)
        tmp = Path(tempfile.mkdtemp(dir=out.parent, prefix=f".{out.name}.tmp-{os.getpid()}-"))
    except OSError as e:
        raise OutputError(Messages.OUT_NOT_WRITABLE.format(out=out, detail=_os_detail(e))) from None
    try:
        # Reading, extraction and consolidation run in a child process, and the model comes
        # back through a file once the child has ended: what they held on the way (the
        # papers, spans, candidates, partly used memory pools) is then the system's again,
        # before the writers and the store's loader take their share
        got = run_apart(partial(_extract, read, out, tmp, lexicons=lexicons,
                                progress=progress, incremental=incremental,
                                workers=workers, scheduler=scheduler, page=page),
                        spill=tmp / _SPILL, dump=_dump, load=load_spill)
        report = read if isinstance(read, ReadReport) else _read_report(tmp)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        for folder in made:  # innermost first; only if still empty
            with contextlib.suppress(OSError):
                folder.rmdir()
        raise
    model: KnowledgeGraph | Spill
    if isinstance(got, tuple):  # extracted in this process (no fork here)
        model, links = got
    elif isinstance(got, Spill):
        model, links = got, got.meta["paper_paper_links"]
    else:  # a model that cannot be streamed comes back whole
        from kg.stores.graph import paper_link_count

        model, links = got, paper_link_count(got)
    # the papers are the model's now: not held here besides (result.graph has them)
    report.papers = []
    try:
        os.chmod(tmp, 0o777 & ~file_mode_mask())  # mkdtemp's 0700 would leave OUT private
        if progress:
            print(f"kg: writing {MODEL}, {TURTLE}, {STORE}/", file=sys.stderr, flush=True)
        previous = out if incremental and out.is_dir() else None
        # what extraction and consolidation needed besides the model: back to the system
        # before the writers and the store's loader take their share
        release_free_memory()
        counts = _counts(model)
        # model.json and model.sqlite are written by a forked child while this process
        # writes graph.ttl and the store loads. This process is not free while the store
        # loads: it writes graph.ttl at the loader's pace (into a pipe the loader does not
        # read while it sorts), so the files written after graph.ttl only added to the wait
        files = partial(_write_files, model, tmp)
        child = _fork(files)
        bar = None
        try:
            if progress:  # graph.ttl paper by paper: the store loads at its pace (the long part)
                from tqdm import tqdm

                bar = tqdm(total=counts["papers"], unit="paper", desc="writing graph.ttl",
                           leave=False)
            n_triples = write_rdf(model, tmp, previous=previous,
                                  each=None if bar is None else bar.update)
        except BaseException:
            _stop(child)  # its files go with the temporary folder: no need to wait for it
            raise
        finally:
            if bar is not None:
                bar.close()
        child_ok = _wait(child)
        if not child_ok:
            files()  # again here, to raise its error in this process
        if isinstance(model, Spill):
            model.close()
        result = BuildResult(out, report, n_triples, links, counts)
        write_manifest(tmp, {"kg_version": __version__, "counts": result.summary()})
        _check_out(out)  # it may have changed while we were extracting
        _swap_in(tmp, out)
    except OSError as e:
        shutil.rmtree(tmp, ignore_errors=True)
        raise OutputError(Messages.OUT_NOT_WRITABLE.format(out=out, detail=_os_detail(e))) from None
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return result
