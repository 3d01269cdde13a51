"""The Python engine: answers fetched from the in-memory model.

The reference engine: plain loops over :class:`~kg.core.model.KnowledgeGraph`
and its indexes (``mentions_by_paper``, ``paper_concepts``, ``concept_papers``).
Over a built ``OUT`` it reads ``model.sqlite`` by key instead
(:class:`queries.python_index.IndexedModelEngine`, the same answers), and loads
``model.json`` only for an ``OUT`` built before that file existed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection
from pathlib import Path
from typing import Any

from kg.core.layout import MODEL_DB
from kg.core.model import KnowledgeGraph, RelationEdge, edge_key
from kg.core.salience import MENTION_WEIGHT
from kg.stores.model_index import open_model_index
from queries.concept_table import ConceptTable
from queries.engine import Engine, Link, PaperLink, Profile
from queries.python_index import IndexedModelEngine, links_in_text_order

__all__ = ["PythonEngine"]

_opened: dict[tuple, Engine] = {}


class PythonEngine:
    """The :class:`~queries.engine.Engine` of a :class:`~kg.core.model.KnowledgeGraph`.

    Examples
    --------
    >>> from kg.core.model import Concept, KnowledgeGraph
    >>> PythonEngine(KnowledgeGraph(concepts={"x": Concept("x", "X")})).totals()
    {'papers': 0, 'concepts': 1, 'mentions': 0}
    """

    name = "python"

    def __init__(self, kg: KnowledgeGraph) -> None:
        self.kg = kg
        self._table: ConceptTable | None = None

    @classmethod
    def from_out(cls, out: Path) -> Engine:
        """The engine over ``OUT/model.sqlite`` (``model.json`` if there is none).

        Opened once per folder and process (a build replaces the folder, so a file that
        changed is opened again).
        """
        path = Path(out) / MODEL_DB
        try:
            st = path.stat()
            key: tuple | None = (str(path.resolve()), st.st_ino, st.st_mtime_ns, st.st_size)
        except OSError:
            key = None
        if key is not None and key in _opened:
            return _opened[key]
        con = open_model_index(out)
        if con is None:
            # pyoxigraph and the RDF writers come with it: only for an OUT of an older build
            from kg.stores.out import load_model

            return cls(load_model(out))
        _opened.clear()  # one folder at a time: a test suite opens hundreds
        engine = _opened[key] = IndexedModelEngine(con, path)
        return engine

    def concept_table(self) -> ConceptTable:
        if self._table is None:
            self._table = ConceptTable(self.kg.concepts)
        return self._table

    def paper_ids(self) -> list[str]:
        return sorted(self.kg.papers)

    def paper_record(self, paper_id: str) -> dict[str, Any] | None:
        p = self.kg.papers.get(paper_id)
        if p is None:
            return None
        return {"title": p.title, "year": p.year, "venue": p.venue, "url": p.url,
                "abstract": p.abstract}

    def titles(self, paper_ids: Collection[str]) -> dict[str, str]:
        return {p: self.kg.papers[p].title for p in paper_ids if p in self.kg.papers}

    def totals(self) -> dict[str, int]:
        kg = self.kg
        return {"papers": len(kg.papers), "concepts": len(kg.concepts),
                "mentions": len(kg.mentions)}

    def paper_counts(self) -> dict[str, int]:
        return {c: len(ps) for c, ps in self.kg.concept_papers.items()}

    def paper_meta(self) -> dict[str, tuple[int | None, str | None]]:
        return {p.id: (p.year, p.venue) for p in self.kg.papers.values()}

    def paper_list(self) -> list[tuple[str, str, int | None, str | None, int]]:
        pc = self.kg.paper_concepts
        return [(p.id, p.title, p.year, p.venue, len(pc.get(p.id, ())))
                for p in sorted(self.kg.papers.values(), key=lambda p: p.id)]

    def papers_with_text(self, needle: str) -> dict[str, tuple[str, str]]:
        return {p.id: (p.title, p.abstract) for p in self.kg.papers.values()
                if needle in p.title.lower() or needle in p.abstract.lower()}

    def _links(self, paper_id: str, wanted: Collection[str] | None = None) -> list[PaperLink]:
        """The paper's links (to ``wanted`` concepts only, if given), in first-mention order."""
        return links_in_text_order(((m.concept, m.sentence)
                                    for m in self.kg.mentions_by_paper.get(paper_id, [])), wanted)

    def concept_links(
        self, concept_ids: Collection[str]
    ) -> tuple[list[Link], dict[str, dict[str, Any]]]:
        wanted = set(concept_ids)
        papers = sorted({p for c in wanted for p in self.kg.concept_papers.get(c, ())})
        links = [Link(p, x.concept, x.mentions, x.first, x.sentences[0])
                 for p in papers for x in self._links(p, wanted)]
        meta = {p: {"title": self.kg.papers[p].title, "year": self.kg.papers[p].year,
                    "venue": self.kg.papers[p].venue} for p in papers}
        return links, meta

    def paper_links(self, paper_id: str) -> list[PaperLink]:
        return self._links(paper_id)

    def papers_of(self, concept_ids: Collection[str]) -> dict[str, set[str]]:
        cp = self.kg.concept_papers
        return {c: set(cp[c]) for c in concept_ids if c in cp}

    def paper_concepts(self, paper_ids: Collection[str]) -> dict[str, set[str]]:
        pc = self.kg.paper_concepts
        return {p: set(pc[p]) for p in paper_ids if p in pc}

    def sentences(self, pairs: Collection[tuple[str, str]]) -> dict[tuple[str, str], list[str]]:
        wanted = set(pairs)
        found: dict[tuple[str, str], list[str]] = {}
        for p in sorted({p for p, _ in wanted}):
            for m in self.kg.mentions_by_paper.get(p, []):  # text order: title first
                if (p, m.concept) in wanted:
                    sentences = found.setdefault((p, m.concept), [])
                    if m.sentence not in sentences:
                        sentences.append(m.sentence)
        return found

    def profile(self, concept_ids: Collection[str]) -> Profile:
        wanted = set(concept_ids)
        out: Profile = {}
        for m in self.kg.mentions:
            if m.concept in wanted:
                n, t = out.setdefault(m.paper, {}).get(m.concept, (0, False))
                out[m.paper][m.concept] = (n + 1, t or m.field == "title")
        return out

    def idf(self, concept_ids: Collection[str]) -> dict[str, float]:
        return {c: self.kg.idf(c) for c in concept_ids if c in self.kg.concept_papers}

    def salience(self, concept_ids: Collection[str] = (),
                 paper_ids: Collection[str] = ()) -> dict[tuple[str, str], tuple[float, bool]]:
        cs, ps = set(concept_ids), set(paper_ids)
        return {k: (s.score, s.about) for k, s in self.kg.salience.items()
                if k[1] in cs or k[0] in ps}

    def related_scores(self, paper_id: str, limit: int) -> list[tuple[str, float]]:
        kg = self.kg

        def weight(p: str, c: str) -> float:
            return 1.0 if kg.about(p, c) else MENTION_WEIGHT

        scores: dict[str, float] = {}
        for cid in sorted(kg.paper_concepts.get(paper_id, ())):  # summed in concept order
            idf = kg.idf(cid) * weight(paper_id, cid)
            for other in kg.concept_papers.get(cid, ()):
                if other != paper_id:
                    scores[other] = scores.get(other, 0.0) + idf * weight(other, cid)
        return list(scores.items())

    def _anchor_papers(self, anchor_ids: Collection[str]) -> set[str]:
        papers: set[str] = set()
        for a in anchor_ids:
            papers.update(self.kg.concept_papers.get(a, ()))  # (|= would copy: not a set)
        return papers

    def cooccurrence_counts(self, anchor_ids: Collection[str]) -> dict[str, int]:
        pc = self.kg.paper_concepts
        return dict(Counter(d for p in self._anchor_papers(anchor_ids) for d in pc.get(p, ())))

    def cooccurrence_papers(
        self, anchor_ids: Collection[str], concept_ids: Collection[str]
    ) -> dict[str, set[str]]:
        wanted, pc = set(concept_ids), self.kg.paper_concepts
        out: dict[str, set[str]] = {}
        for p in self._anchor_papers(anchor_ids):
            for d in wanted.intersection(pc.get(p, ())):
                out.setdefault(d, set()).add(p)
        return out

    def relation_edges(self, concept_ids: Collection[str]) -> list[RelationEdge]:
        wanted = set(concept_ids)
        return [e for e in self.kg.relation_edges.values()
                if e.head in wanted or e.tail in wanted]

    def paper_relations(self, paper_id: str) -> list[RelationEdge]:
        edges = self.kg.relation_edges
        out: dict[tuple[str, str, str], RelationEdge] = {}
        for r in self.kg.relations_by_paper.get(paper_id, ()):
            key = edge_key(r)
            if key is not None and key not in out:
                e = edges[key]
                out[key] = RelationEdge(*key, e.count, {paper_id: e.evidence[paper_id]})
        return list(out.values())
