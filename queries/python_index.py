"""The Python engine over ``OUT/model.sqlite``: the same answers, read by key, not all at once.

:class:`queries.python.PythonEngine` answers from a :class:`~kg.core.model.KnowledgeGraph`
in memory; over a built ``OUT`` that meant parsing the whole ``model.json`` for every
command. :class:`IndexedModelEngine` asks the tables of :mod:`kg.stores.model_index`
for the rows a question needs and computes every answer with the same Python as the
in-memory engine (the same loops, the same order of float sums), so the two agree
exactly.
"""

from __future__ import annotations

import json
import math
import sqlite3
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from kg.core.errors import Messages, StoreError
from kg.core.layout import MODEL_DB
from kg.core.model import Concept, RelationEdge
from kg.core.salience import MENTION_WEIGHT
from kg.stores.model_index import concept_from_row, index_damaged, open_model_index
from queries.concept_table import ConceptTable
from queries.engine import Link, PaperLink, Profile

__all__ = ["IndexedConceptTable", "IndexedModelEngine", "RowsByKey", "links_in_text_order"]

V = TypeVar("V")


def links_in_text_order(mentions: Iterable[tuple[str, str]],
                        wanted: Collection[str] | None = None) -> list[PaperLink]:
    """One paper's links from its ``(concept, sentence)`` mentions in text order.

    Only links to ``wanted`` concepts if given; ``first`` counts every mention.

    Examples
    --------
    >>> links_in_text_order([("a", "S1"), ("b", "S1"), ("a", "S2"), ("a", "S2")])
    [PaperLink(concept='a', mentions=3, first=0, sentences=['S1', 'S2']), \
PaperLink(concept='b', mentions=1, first=1, sentences=['S1'])]
    """
    found: dict[str, PaperLink] = {}
    for i, (concept, sentence) in enumerate(mentions):
        if wanted is not None and concept not in wanted:
            continue
        link = found.get(concept)
        if link is None:
            found[concept] = PaperLink(concept, 1, i, [sentence])
            continue
        if sentence not in link.sentences:
            link.sentences.append(sentence)
        found[concept] = link._replace(mentions=link.mentions + 1)
    return list(found.values())


class RowsByKey(Mapping[str, V]):
    """A table's rows as a read-only mapping that reads each key when first asked.

    Looking a key up costs one indexed query (answers are kept); iterating, ``len`` or
    ``values()`` read the whole table once, in its order. A question that resolves one
    name and labels a few concepts thus reads a few rows, not 26,000 concepts (0.5 s of
    ``kg papers --concept`` at 20,000 papers).

    Examples
    --------
    >>> con = sqlite3.connect(":memory:")
    >>> _ = con.execute("CREATE TABLE t (k TEXT PRIMARY KEY, v TEXT)")
    >>> _ = con.executemany("INSERT INTO t VALUES (?, ?)", [("a", "1"), ("b", "2")])
    >>> rows = RowsByKey(lambda sql, p=(): con.execute(sql, tuple(p)),
    ...                  "SELECT v FROM t WHERE k = ?", "SELECT k, v FROM t ORDER BY k",
    ...                  lambda key, v: int(v))
    >>> rows["b"], "c" in rows, rows.get("c"), dict(rows)
    (2, False, None, {'a': 1, 'b': 2})
    """

    def __init__(self, rows: Callable[..., Iterable[tuple]], one: str, every: str,
                 make: Callable[[str, Any], V]) -> None:
        self._query = rows
        self._one, self._every, self._make = one, every, make
        self._found: dict[str, V | None] = {}
        self._all: dict[str, V] | None = None

    def __getitem__(self, key: str) -> V:
        if self._all is not None:
            return self._all[key]
        if key not in self._found:
            found = list(self._query(self._one, (key,)))
            self._found[key] = self._make(key, found[0][0]) if found else None
        value = self._found[key]
        if value is None:
            raise KeyError(key)
        return value

    def _every_row(self) -> dict[str, V]:
        if self._all is None:
            self._all = {k: self._make(k, v) for k, v in self._query(self._every)}
        return self._all

    def __iter__(self) -> Iterator[str]:
        return iter(self._every_row())

    def __len__(self) -> int:
        return len(self._every_row())


@dataclass
class IndexedConceptTable(ConceptTable):
    """The concept table of ``model.sqlite``: concepts and names read by key, the
    concepts below one found with a recursive query over its ``hierarchy`` table."""

    below: Callable[[str], set[str]] | None = None

    def __post_init__(self) -> None:  # the index is the file's own: nothing to make
        pass

    def narrower(self, concept_id: str) -> set[str]:
        if self.below is None:
            return super().narrower(concept_id)
        return self.below(concept_id)


class IndexedModelEngine:
    """The Python engine over an open ``model.sqlite``.

    Examples
    --------
    >>> import tempfile
    >>> from kg.core.model import Concept, KnowledgeGraph, Mention, Paper
    >>> from kg.stores.model_index import open_model_index, write_model_index
    >>> kg = KnowledgeGraph(papers={"p": Paper("p", "On GNNs", "GNNs work.")},
    ...     concepts={"gnn": Concept("gnn", "graph neural network")},
    ...     mentions=[Mention("p", "gnn", "title", 3, 7, "GNNs", "On GNNs", "acronym")])
    >>> out = Path(tempfile.mkdtemp())
    >>> write_model_index(kg, out / "model.sqlite")
    >>> engine = IndexedModelEngine(open_model_index(out), out / "model.sqlite")
    >>> engine.totals(), engine.paper_concepts(["p"])
    ({'papers': 1, 'concepts': 1, 'mentions': 1}, {'p': {'gnn'}})
    """

    name = "python"

    def __init__(self, con: sqlite3.Connection, path: Path) -> None:
        self.con = con
        self.path = path
        self._table: ConceptTable | None = None
        self._totals: dict[str, int] | None = None

    @classmethod
    def from_out(cls, out: Path) -> IndexedModelEngine:
        """The engine over ``OUT/model.sqlite`` (a one-line error if there is none)."""
        con = open_model_index(out)
        if con is None:
            raise StoreError(Messages.NOT_BUILT.format(path=out, missing=MODEL_DB))
        return cls(con, Path(out) / MODEL_DB)

    # -- reading ------------------------------------------------------------------------

    def _rows(self, sql: str, params: Iterable[Any] = ()) -> list[tuple]:
        try:
            return self.con.execute(sql, tuple(params)).fetchall()
        except sqlite3.DatabaseError as e:
            raise index_damaged(e, self.path) from None

    def _iter(self, sql: str, params: Iterable[Any] = ()) -> Iterator[tuple]:
        try:
            yield from self.con.execute(sql, tuple(params))
        except sqlite3.DatabaseError as e:
            raise index_damaged(e, self.path) from None

    def _with_ids(self, ids: Iterable[str], sql: str, params: Iterable[Any] = ()) -> list[tuple]:
        """``sql`` run with the temporary table ``ids(id)`` holding ``ids`` (any number).

        ``ids CROSS JOIN t`` in ``sql`` makes ``ids`` the outer loop: the planner knows
        nothing of a temporary table's size and otherwise may scan ``t`` (0.5 s for one
        concept's links at 20,000 papers, against 0.1 ms).
        """
        try:
            self.con.execute("CREATE TEMP TABLE IF NOT EXISTS ids (id TEXT PRIMARY KEY)")
            self.con.execute("DELETE FROM ids")
            self.con.executemany("INSERT OR IGNORE INTO ids VALUES (?)", ((i,) for i in ids))
            return self.con.execute(sql, tuple(params)).fetchall()
        except sqlite3.DatabaseError as e:
            raise index_damaged(e, self.path) from None

    def _with_two(self, first: Iterable[str], second: Iterable[str], sql: str) -> list[tuple]:
        """``sql`` with the temporary tables ``ids(id)`` and ``ids2(id)``."""
        try:
            self.con.execute("CREATE TEMP TABLE IF NOT EXISTS ids2 (id TEXT PRIMARY KEY)")
            self.con.execute("DELETE FROM ids2")
            self.con.executemany("INSERT OR IGNORE INTO ids2 VALUES (?)",
                                 ((i,) for i in second))
        except sqlite3.DatabaseError as e:
            raise index_damaged(e, self.path) from None
        return self._with_ids(first, sql)

    # -- concepts and papers ------------------------------------------------------------

    def concept_table(self) -> ConceptTable:
        if self._table is None:
            concepts: RowsByKey[Concept] = RowsByKey(
                self._iter, "SELECT data FROM concepts WHERE id = ?",
                "SELECT id, data FROM concepts ORDER BY ord", concept_from_row)
            names: RowsByKey[str] = RowsByKey(
                self._iter, "SELECT concept FROM names WHERE key = ?",
                "SELECT key, concept FROM names ORDER BY key", lambda _key, cid: cid)
            self._table = IndexedConceptTable(concepts, names, below=self._below)
        return self._table

    def _below(self, concept_id: str) -> set[str]:
        """``concept_id`` and every concept under it (:meth:`ConceptTable.narrower`)."""
        return {r[0] for r in self._rows("""
            WITH RECURSIVE below(id) AS (
                VALUES (?) UNION SELECT h.narrower FROM hierarchy h JOIN below
                ON h.broader = below.id)
            SELECT id FROM below""", [concept_id])}

    def paper_ids(self) -> list[str]:
        return sorted(r[0] for r in self._iter("SELECT id FROM papers"))

    def paper_record(self, paper_id: str) -> dict[str, Any] | None:
        rows = self._rows("SELECT title, year, venue, url, abstract FROM papers WHERE id = ?",
                          [paper_id])
        if not rows:
            return None
        title, year, venue, url, abstract = rows[0]
        return {"title": title, "year": year, "venue": venue, "url": url, "abstract": abstract}

    def titles(self, paper_ids: Collection[str]) -> dict[str, str]:
        found = dict(self._with_ids(
            paper_ids, "SELECT p.id, p.title FROM ids CROSS JOIN papers p ON p.id = ids.id"))
        return {p: found[p] for p in paper_ids if p in found}

    def totals(self) -> dict[str, int]:
        if self._totals is None:
            meta = dict(self._rows("SELECT key, value FROM meta"))
            self._totals = {k: meta[k] for k in ("papers", "concepts", "mentions")}
        return dict(self._totals)

    def paper_counts(self) -> dict[str, int]:
        return dict(self._iter("SELECT concept, COUNT(*) FROM links GROUP BY concept"))

    def paper_meta(self) -> dict[str, tuple[int | None, str | None]]:
        return {p: (y, v) for p, y, v in
                self._iter("SELECT id, year, venue FROM papers ORDER BY ord")}

    def paper_list(self) -> list[tuple[str, str, int | None, str | None, int]]:
        return self._rows("""
            SELECT p.id, p.title, p.year, p.venue,
                   (SELECT COUNT(*) FROM links l WHERE l.paper = p.id)
            FROM papers p ORDER BY p.id""")

    def papers_with_text(self, needle: str) -> dict[str, tuple[str, str]]:
        # Python's lower(), not SQLite's (ASCII only): the in-memory engine's answer
        return {p: (t, a) for p, t, a in
                self._iter("SELECT id, title, abstract FROM papers ORDER BY ord")
                if needle in t.lower() or needle in a.lower()}

    # -- links --------------------------------------------------------------------------

    def concept_links(
        self, concept_ids: Collection[str]
    ) -> tuple[list[Link], dict[str, dict[str, Any]]]:
        rows = self._with_ids(concept_ids, """
            SELECT l.paper, l.concept, l.mentions, l.first, s.text
            FROM ids CROSS JOIN links l ON l.concept = ids.id
            JOIN sentences s ON s.paper = l.paper AND s.n = l.evidence""")
        rows.sort(key=lambda r: (r[0], r[3]))  # papers in id order, each in first-mention order
        links = [Link(*r) for r in rows]
        meta = {p: {"title": t, "year": y, "venue": v} for p, t, y, v in self._with_ids(
            {r[0] for r in rows}, "SELECT p.id, p.title, p.year, p.venue FROM ids "
                                  "CROSS JOIN papers p ON p.id = ids.id ORDER BY p.id")}
        return links, meta

    def _mentions_of(self, paper_id: str) -> list[tuple[str, str]]:
        """``(concept, sentence)`` of the paper's mentions, text order."""
        return self._rows("""
            SELECT m.concept, s.text FROM mentions m
            JOIN sentences s ON s.paper = m.paper AND s.n = m.sentence
            WHERE m.paper = ? ORDER BY m.ord""", [paper_id])

    def paper_links(self, paper_id: str) -> list[PaperLink]:
        return links_in_text_order(self._mentions_of(paper_id))

    def papers_of(self, concept_ids: Collection[str]) -> dict[str, set[str]]:
        out: dict[str, set[str]] = {}
        for c, p in self._with_ids(concept_ids,
                                   "SELECT l.concept, l.paper FROM ids CROSS JOIN links l "
                                   "ON l.concept = ids.id"):
            out.setdefault(c, set()).add(p)
        return out

    def paper_concepts(self, paper_ids: Collection[str]) -> dict[str, set[str]]:
        out: dict[str, set[str]] = {}
        for p, c in self._with_ids(paper_ids,
                                   "SELECT l.paper, l.concept FROM ids CROSS JOIN links l "
                                   "ON l.paper = ids.id"):
            out.setdefault(p, set()).add(c)
        return out

    def sentences(self, pairs: Collection[tuple[str, str]]) -> dict[tuple[str, str], list[str]]:
        wanted = set(pairs)
        found: dict[tuple[str, str], list[str]] = {}
        for p in sorted({p for p, _ in wanted}):
            for concept, sentence in self._mentions_of(p):  # text order: title first
                if (p, concept) in wanted:
                    sentences = found.setdefault((p, concept), [])
                    if sentence not in sentences:
                        sentences.append(sentence)
        return found

    def profile(self, concept_ids: Collection[str]) -> Profile:
        out: Profile = {}
        for p, c, n, t in self._with_ids(concept_ids, """
                SELECT l.paper, l.concept, l.mentions, l.in_title FROM ids
                CROSS JOIN links l ON l.concept = ids.id ORDER BY l.paper, l.first"""):
            out.setdefault(p, {})[c] = (n, bool(t))
        return out

    def _df(self, concept_ids: Collection[str]) -> dict[str, int]:
        return dict(self._with_ids(concept_ids, "SELECT l.concept, COUNT(*) FROM ids "
                                                "CROSS JOIN links l ON l.concept = ids.id "
                                                "GROUP BY l.concept"))

    def _idf(self, df: int) -> float:
        """``log(N / df)`` as :meth:`kg.core.model.KnowledgeGraph.idf` computes it."""
        return math.log(self.totals()["papers"] / df) if df else 0.0

    def idf(self, concept_ids: Collection[str]) -> dict[str, float]:
        df = self._df(concept_ids)
        return {c: self._idf(df[c]) for c in concept_ids if c in df}

    def salience(self, concept_ids: Collection[str] = (),
                 paper_ids: Collection[str] = ()) -> dict[tuple[str, str], tuple[float, bool]]:
        out: dict[tuple[str, str], tuple[float, bool]] = {}
        for ids, column in ((concept_ids, "concept"), (paper_ids, "paper")):
            if ids:
                for p, c, s, a in self._with_ids(ids, f"""
                        SELECT l.paper, l.concept, l.salience, l.about FROM ids
                        CROSS JOIN links l ON l.{column} = ids.id"""):
                    out[(p, c)] = (s, bool(a))
        return out

    def related_scores(self, paper_id: str, limit: int) -> list[tuple[str, float]]:
        mine = sorted(r[0] for r in self._rows("SELECT concept FROM links WHERE paper = ?",
                                               [paper_id]))
        papers: dict[str, list[tuple[str, float]]] = {}
        for c, p, a in self._with_ids(mine, "SELECT l.concept, l.paper, l.about FROM ids "
                                            "CROSS JOIN links l ON l.concept = ids.id"):
            papers.setdefault(c, []).append((p, 1.0 if a else MENTION_WEIGHT))
        scores: dict[str, float] = {}
        for cid in mine:  # summed in concept order, as the in-memory engine does
            others = papers.get(cid, [])
            idf = self._idf(len(others)) * dict(others)[paper_id]
            for other, weight in others:
                if other != paper_id:
                    scores[other] = scores.get(other, 0.0) + idf * weight
        return list(scores.items())

    def cooccurrence_counts(self, anchor_ids: Collection[str]) -> dict[str, int]:
        return dict(self._with_ids(anchor_ids, """
            SELECT l.concept, COUNT(*) FROM links l
            WHERE l.paper IN (SELECT a.paper FROM ids CROSS JOIN links a ON a.concept = ids.id)
            GROUP BY l.concept"""))

    def cooccurrence_papers(
        self, anchor_ids: Collection[str], concept_ids: Collection[str]
    ) -> dict[str, set[str]]:
        out: dict[str, set[str]] = {}
        for c, p in self._with_two(anchor_ids, concept_ids, """
                SELECT l.concept, l.paper FROM ids2 CROSS JOIN links l ON l.concept = ids2.id
                WHERE l.paper IN (SELECT a.paper FROM ids
                                  CROSS JOIN links a ON a.concept = ids.id)"""):
            out.setdefault(c, set()).add(p)
        return out

    # -- relations between concepts -----------------------------------------------------

    @staticmethod
    def _edge(row: tuple) -> RelationEdge:
        rtype, head, tail, count, evidence = row
        return RelationEdge(rtype, head, tail, count, json.loads(evidence))

    def relation_edges(self, concept_ids: Collection[str]) -> list[RelationEdge]:
        return [self._edge(r) for r in self._with_ids(concept_ids, """
            SELECT type, head, tail, count, evidence FROM relations
            WHERE head IN (SELECT id FROM ids) OR tail IN (SELECT id FROM ids)
            ORDER BY type, head, tail""")]

    def paper_relations(self, paper_id: str) -> list[RelationEdge]:
        edges = [self._edge(r) for r in self._rows("""
            SELECT r.type, r.head, r.tail, r.count, r.evidence FROM paper_relations p
            JOIN relations r ON r.type = p.type AND r.head = p.head AND r.tail = p.tail
            WHERE p.paper = ?""", [paper_id])]
        return [RelationEdge(e.type, e.head, e.tail, e.count, {paper_id: e.evidence[paper_id]})
                for e in edges]
