"""``kg build``: read abstracts, extract concepts, write every output into ``OUT``.

The build writes into a temporary sibling folder and swaps it in only when
everything succeeded, so a failed or interrupted build leaves the previous
``OUT`` as it was.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from kg import __version__
from kg.model import KnowledgeGraph
from kg.readers import ReadReport, read_corpus
from kg.store import MODEL, PAGE, write_manifest, write_rdf


@dataclass
class BuildResult:
    """What a build produced."""

    out: Path
    graph: KnowledgeGraph
    report: ReadReport
    triples: int
    links: int

    def summary(self) -> dict:
        """Counts for the one-line summary and ``manifest.json``."""
        kg = self.graph
        return {
            "papers": len(kg.papers),
            "concepts": len(kg.concepts),
            "mentions": len(kg.mentions),
            "paper_concept_links": sum(len(c) for c in kg.paper_concepts.values()),
            "paper_paper_links": self.links,
            "triples": self.triples,
            "skipped_records": len(self.report.skipped),
            "duplicate_records": self.report.duplicates,
        }


def _swap_in(tmp: Path, out: Path) -> None:
    """Replace ``out`` by ``tmp`` with two renames; the old folder is removed last."""
    old = None
    if out.exists():
        old = out.with_name(f".{out.name}.old-{os.getpid()}")
        os.replace(out, old)
    os.replace(tmp, out)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def build(
    inputs: Iterable[str | Path],
    out: str | Path,
    *,
    lexicons: Iterable[str | Path] = (),
    on_error: str = "raise",
    progress: bool = False,
    page: bool = True,
) -> BuildResult:
    """Build the knowledge graph of ``inputs`` into the folder ``out``.

    Parameters
    ----------
    inputs : iterable of paths
        Corpus files (.txt, .jsonl, .csv).
    out : path
        Output folder; replaced as a whole on success.
    lexicons : iterable of paths
        Extra SKOS lexicons.
    on_error : {"raise", "skip"}
        What to do with a bad record.
    progress : bool
        Show progress bars on stderr.
    page : bool
        Also write ``graph.html``.

    Examples
    --------
    >>> result = build(["examples/neurips2026-abstracts.txt"], "/tmp/kg-doctest")  # doctest: +SKIP
    >>> result.summary()["papers"]  # doctest: +SKIP
    19
    """
    from extractors.pipeline import extract_corpus  # spaCy import is slow; only when building
    from kg.graph import paper_links

    out = Path(out)
    report = read_corpus(inputs, on_error=on_error)
    graph = extract_corpus(report.papers, lexicons=lexicons, progress=progress)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=out.parent, prefix=f".{out.name}.tmp-"))
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp, 0o777 & ~umask)  # mkdtemp's 0700 would leave OUT private
    try:
        graph.save(tmp / MODEL)
        n_triples = write_rdf(graph, tmp)
        links = len(paper_links(graph))
        if page:
            from visualizations.views import default_page

            default_page(graph, tmp / PAGE)
        result = BuildResult(out, graph, report, n_triples, links)
        write_manifest(tmp, {"kg_version": __version__, "counts": result.summary()})
        _swap_in(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return result
