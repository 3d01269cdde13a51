"""``OUT/model.sqlite``: the model in indexed tables, so a question reads only what it needs.

``model.json`` is the whole model in one document: answering one question from it means
parsing all of it (2.6 s and 716 MB at 20,000 papers). The build also writes the same
model as SQLite tables (the standard library's :mod:`sqlite3`, no server), which the Python
engine (:mod:`queries.python_index`) opens read-only and queries by key:

``papers``
    ``ord`` (the model's order), ``id``, ``title``, ``abstract``, ``year``, ``venue``, ``url``,
    ``keywords`` (JSON), ``title_derived``, ``source``;
``concepts``
    ``ord``, ``id`` and the concept's fields as JSON;
``sentences``
    each paper's distinct mention sentences, numbered ``n`` in text order, then the
    sentences of its relation statements that no mention has;
``mentions``
    ``paper``, ``ord`` (the mention's place among the paper's mentions, text order),
    ``concept``, ``title`` (1 if in the title), ``sentence`` (its ``n``), and the rest of
    the :class:`~kg.core.model.Mention`: ``start``, ``stop``, ``text``, ``extractor``,
    ``score``;
``links``
    one row per paper and concept it mentions: ``mentions``, ``first`` (the ``ord`` of the
    first), ``in_title``, ``evidence`` (the first mention's sentence ``n``), ``salience`` and
    ``about`` (1 if the paper is about the concept: :mod:`kg.core.salience`); keyed by
    ``(concept, paper)`` and indexed by ``(paper, concept)``;
``relations``
    one row per relation edge (:attr:`~kg.core.model.KnowledgeGraph.relation_edges`):
    ``type``, ``head``, ``tail``, ``count`` and ``evidence`` (JSON: each paper's first
    sentence stating it, by paper id); indexed by ``head`` and by ``tail``;
``paper_relations``
    ``paper``, ``type``, ``head``, ``tail``: the edges each paper states;
``statements``
    every :class:`~kg.core.model.Relation` (the relation statements, edges of the graph
    or not), ``paper`` and ``ord`` as for mentions, ``sentence`` a ``sentences`` number;
``hierarchy``
    ``broader``, ``narrower``: one row per ``broader`` link, so a question walks down from
    one concept (a recursive query) instead of reading every concept;
``names``
    every normalised label, alias, acronym and hidden label (``key``) with its ``concept``
    (:func:`~kg.core.model.concept_index`): a question resolves names without normalising
    every concept's (65 % of ``kg papers --concept`` at 5,000 papers, cProfile);
``meta``
    ``format``, the totals, and ``whole`` (1 if the tables hold the whole model in its
    order: :func:`read_model` then gives what ``model.json`` holds, without parsing it).

Rows go in in key order, so the same model gives the same bytes (incremental builds and
builds from scratch are byte-identical).
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterable, Iterator
from pathlib import Path

from kg.core.errors import Messages, StoreError
from kg.core.layout import MODEL_DB
from kg.core.model import (
    FIELDS,
    Concept,
    KnowledgeGraph,
    Mention,
    Paper,
    Relation,
    RelationEdge,
    Salience,
    concept_index,
)

__all__ = ["FORMAT", "QUESTION_FORMATS", "concept_from_row", "index_damaged",
           "is_whole", "open_model_index", "read_model", "write_model_index",
           "write_model_index_parts"]

#: Bump when the tables change: an engine then falls back to ``model.json``.
FORMAT = 5
#: The formats whose tables answer questions: format 5 only added what reading the whole
#: model needs (an ``OUT`` built with format 4 is still read by key; its whole model comes
#: from ``model.json``).
QUESTION_FORMATS = (4, 5)

_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE papers (ord INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, title TEXT NOT NULL,
    abstract TEXT NOT NULL, year INTEGER, venue TEXT, url TEXT, keywords TEXT NOT NULL,
    title_derived INTEGER NOT NULL, source TEXT);
CREATE TABLE concepts (ord INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, data TEXT NOT NULL);
CREATE TABLE sentences (paper TEXT NOT NULL, n INTEGER NOT NULL, text TEXT NOT NULL,
    PRIMARY KEY (paper, n)) WITHOUT ROWID;
CREATE TABLE mentions (paper TEXT NOT NULL, ord INTEGER NOT NULL, concept TEXT NOT NULL,
    title INTEGER NOT NULL, sentence INTEGER NOT NULL, start INTEGER NOT NULL,
    stop INTEGER NOT NULL, text TEXT NOT NULL, extractor TEXT NOT NULL, score REAL NOT NULL,
    PRIMARY KEY (paper, ord)) WITHOUT ROWID;
CREATE TABLE links (concept TEXT NOT NULL, paper TEXT NOT NULL, mentions INTEGER NOT NULL,
    first INTEGER NOT NULL, in_title INTEGER NOT NULL, evidence INTEGER NOT NULL,
    salience REAL NOT NULL, about INTEGER NOT NULL, PRIMARY KEY (concept, paper)) WITHOUT ROWID;
CREATE TABLE relations (type TEXT NOT NULL, head TEXT NOT NULL, tail TEXT NOT NULL,
    count INTEGER NOT NULL, evidence TEXT NOT NULL, PRIMARY KEY (type, head, tail))
    WITHOUT ROWID;
CREATE TABLE paper_relations (paper TEXT NOT NULL, type TEXT NOT NULL, head TEXT NOT NULL,
    tail TEXT NOT NULL, PRIMARY KEY (paper, type, head, tail)) WITHOUT ROWID;
CREATE TABLE statements (paper TEXT NOT NULL, ord INTEGER NOT NULL, type TEXT NOT NULL,
    title INTEGER NOT NULL, head_start INTEGER NOT NULL, head_end INTEGER NOT NULL,
    head_text TEXT NOT NULL, tail_start INTEGER NOT NULL, tail_end INTEGER NOT NULL,
    tail_text TEXT NOT NULL, sentence INTEGER NOT NULL, extractor TEXT NOT NULL,
    score REAL NOT NULL, head_concept TEXT, tail_concept TEXT, PRIMARY KEY (paper, ord))
    WITHOUT ROWID;
CREATE TABLE hierarchy (broader TEXT NOT NULL, narrower TEXT NOT NULL,
    PRIMARY KEY (broader, narrower)) WITHOUT ROWID;
CREATE TABLE names (key TEXT PRIMARY KEY, concept TEXT NOT NULL) WITHOUT ROWID;
"""
#: Built after the rows are in: one sort instead of a b-tree grown out of order.
_INDEXES = """
CREATE INDEX links_by_paper ON links (paper, concept);
CREATE INDEX relations_by_head ON relations (head);
CREATE INDEX relations_by_tail ON relations (tail);
"""


def write_model_index(kg: KnowledgeGraph, path: str | Path) -> None:
    """Write the model's tables to ``path`` (replaced if it exists).

    Examples
    --------
    >>> import tempfile
    >>> from kg.core.model import Concept, Mention, Paper
    >>> kg = KnowledgeGraph(papers={"p": Paper("p", "On GNNs", "GNNs work.")},
    ...     concepts={"gnn": Concept("gnn", "graph neural network")},
    ...     mentions=[Mention("p", "gnn", "title", 3, 7, "GNNs", "On GNNs", "acronym")])
    >>> path = Path(tempfile.mkdtemp()) / "model.sqlite"
    >>> write_model_index(kg, path)
    >>> open_model_index(path.parent).execute("SELECT * FROM links").fetchall()
    [('gnn', 'p', 1, 0, 1, 0, 0.866, 1)]
    """
    write_model_index_parts(path, kg.papers.values(), kg.concepts, _parts(kg),
                            kg.relation_edges.values(), n_papers=len(kg.papers),
                            n_mentions=len(kg.mentions), whole=is_whole(kg))


def _parts(kg: KnowledgeGraph, size: int = 256) -> Iterator[KnowledgeGraph]:
    """``kg`` as :func:`write_model_index_parts` takes it: ``size`` papers with rows at a
    time, in id order, each part with its papers' mentions and relations (in the model's
    order) and the whole model's saliences."""
    by_paper = kg.mentions_by_paper
    said = _by_paper(kg.relations)
    salience = kg.salience
    pids = sorted(by_paper.keys() | said.keys())
    for i in range(0, len(pids), size):
        chunk = pids[i:i + size]
        part = KnowledgeGraph(papers={}, concepts=kg.concepts,
                              mentions=[m for p in chunk for m in by_paper.get(p, ())],
                              relations=[r for p in chunk for r in said.get(p, ())])
        part.__dict__["salience"] = salience  # the corpus's scores, not the part's own
        yield part


#: The per-paper tables, filled part by part in a scratch database first
#: (:func:`write_model_index_parts`): each is then copied whole, in key order, so that the
#: file's pages are laid out table after table.
_STAGED = ("sentences", "mentions", "statements", "links", "paper_relations")


def write_model_index_parts(path: str | Path, papers: Iterable[Paper],
                            concepts: dict[str, Concept], parts: Iterable[KnowledgeGraph],
                            edges: Iterable[RelationEdge], *, n_papers: int,
                            n_mentions: int, whole: bool = True) -> None:
    """:func:`write_model_index` of a model given in parts, never held whole.

    ``papers`` in the model's order; ``parts`` are models of a few papers each, with every
    concept and their papers' saliences, their papers in id order from one part to the
    next (:meth:`kg.stores.spill.Spill.parts`); ``edges`` the relation edges in key order;
    ``whole``: whether :func:`read_model` gives the model back (:func:`is_whole`). The
    per-paper tables go through a scratch database beside ``path`` (removed after) and are
    copied in key order, so the file's bytes do not depend on how the model was cut.
    """
    path = Path(path)
    scratch = path.with_name(path.name + ".scratch")
    path.unlink(missing_ok=True)
    scratch.unlink(missing_ok=True)
    con = sqlite3.connect(path, isolation_level=None)
    try:
        # one writer, a file nobody reads until the build swaps OUT in: no journal, no syncs
        con.execute("PRAGMA journal_mode = OFF")
        con.execute("PRAGMA synchronous = OFF")
        con.executescript(_SCHEMA)
        con.execute("ATTACH DATABASE ? AS scratch", (str(scratch),))
        con.execute("PRAGMA scratch.journal_mode = OFF")
        con.execute("PRAGMA scratch.synchronous = OFF")
        for statement in _SCHEMA.split(";"):
            name = statement.split("(")[0].split()[-1] if "CREATE TABLE" in statement else ""
            if name in _STAGED:
                con.execute(statement.replace(f"CREATE TABLE {name} ",
                                              f"CREATE TABLE scratch.{name} "))
        con.execute("BEGIN")
        _fill_parts(con, papers, concepts, parts, edges, n_papers=n_papers,
                    n_mentions=n_mentions, whole=whole)
        for statement in _INDEXES.strip().splitlines():  # executescript would commit first
            con.execute(statement)
        con.execute("COMMIT")
        con.execute("DETACH DATABASE scratch")
    finally:
        con.close()
        scratch.unlink(missing_ok=True)


def _fill_parts(con: sqlite3.Connection, papers: Iterable[Paper], concepts: dict[str, Concept],
                parts: Iterable[KnowledgeGraph], edges: Iterable[RelationEdge], *,
                n_papers: int, n_mentions: int, whole: bool) -> None:
    """The rows of :func:`write_model_index_parts`, table by table; only one part's
    per-paper rows are held at a time."""
    con.executemany("INSERT INTO papers VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    ((i, p.id, p.title, p.abstract, p.year, p.venue, p.url, _json(p.keywords),
                      int(p.title_derived), p.source)
                     for i, p in enumerate(papers)))
    con.executemany("INSERT INTO concepts VALUES (?, ?, ?)",
                    ((i, c.id, _json(_concept_fields(c)))
                     for i, c in enumerate(concepts.values())))
    for kg in parts:
        by_paper = kg.mentions_by_paper
        said = _by_paper(kg.relations)
        salience = kg.salience
        sentences: list[tuple] = []
        mentions: list[tuple] = []
        statements: list[tuple] = []
        links: list[tuple] = []
        for pid in sorted(by_paper.keys() | said.keys()):
            n: dict[str, int] = {}
            for item in (*by_paper.get(pid, ()), *said.get(pid, ())):
                n.setdefault(item.sentence, len(n))
            sentences.extend((pid, k, sentence) for sentence, k in n.items())
            linked: dict[str, list[int]] = {}
            for i, m in enumerate(by_paper.get(pid, ())):
                title = int(m.field == "title")
                mentions.append((pid, i, m.concept, title, n[m.sentence], m.start, m.end,
                                 m.text, m.extractor, m.score))
                link = linked.get(m.concept)
                if link is None:
                    linked[m.concept] = [1, i, title, n[m.sentence]]
                else:
                    link[0] += 1
                    link[2] |= title
            statements.extend(
                (pid, i, r.type, int(r.field == "title"), r.head_start, r.head_end,
                 r.head_text, r.tail_start, r.tail_end, r.tail_text, n[r.sentence],
                 r.extractor, r.score, r.head_concept, r.tail_concept)
                for i, r in enumerate(said.get(pid, ())))
            links.extend((c, pid, *link, salience[(pid, c)].score, int(salience[(pid, c)].about))
                         for c, link in linked.items())
        con.executemany("INSERT INTO scratch.sentences VALUES (?, ?, ?)", sentences)
        con.executemany("INSERT INTO scratch.mentions VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        mentions)
        con.executemany("INSERT INTO scratch.statements VALUES "
                        "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", statements)
        con.executemany("INSERT INTO scratch.links VALUES (?, ?, ?, ?, ?, ?, ?, ?)", links)
    # each table's rows in key order (the scan of its b-tree), inserted one by one: the
    # "WHERE 1" keeps SQLite from copying the b-tree's cells as they are, which lays the
    # pages out otherwise than row inserts
    for table in _STAGED[:4]:
        con.execute(f"INSERT INTO main.{table} SELECT * FROM scratch.{table} WHERE 1")  # noqa: S608
    for e in edges:
        key = (e.type, e.head, e.tail)
        con.execute("INSERT INTO relations VALUES (?, ?, ?, ?, ?)", (
            *key, e.count, json.dumps(e.evidence, ensure_ascii=False, separators=(",", ":"))))
        con.executemany("INSERT INTO scratch.paper_relations VALUES (?, ?, ?, ?)",
                        [(p, *key) for p in e.evidence])
    con.execute("INSERT INTO main.paper_relations SELECT * FROM scratch.paper_relations WHERE 1")
    con.executemany("INSERT INTO hierarchy VALUES (?, ?)", sorted(
        {(b, cid) for cid, c in concepts.items() for b in c.broader}))
    con.executemany("INSERT INTO names VALUES (?, ?)", sorted(concept_index(concepts).items()))
    con.executemany("INSERT INTO meta VALUES (?, ?)", sorted({
        "format": FORMAT, "papers": n_papers, "concepts": len(concepts),
        "mentions": n_mentions, "whole": int(whole)}.items()))


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def _by_paper(items: Iterable[Relation]) -> dict[str, list[Relation]]:
    out: dict[str, list[Relation]] = {}
    for r in items:
        out.setdefault(r.paper, []).append(r)
    return out


def is_whole(kg: KnowledgeGraph) -> bool:
    """Whether :func:`read_model` gives ``kg`` back: its mentions and relations are grouped by
    paper, papers in id order (as a build sorts them), and each is in a field of
    :data:`~kg.core.model.FIELDS`."""
    for items in (kg.mentions, kg.relations):
        last = ""
        for item in items:
            if item.paper < last or item.field not in FIELDS:
                return False
            last = item.paper
    return True


def read_model(con: sqlite3.Connection) -> KnowledgeGraph | None:
    """The whole model from ``model.sqlite`` (opened by :func:`open_model_index`), equal to
    what ``model.json`` holds; ``None`` if the tables do not hold all of it.

    Parsing ``model.json`` holds the whole parsed document besides the model (20,000 papers:
    2.3 GB at peak against 0.47 GB here, and ~1.3x the CPU time); here each sentence, id and
    name is one string object however many items carry it.

    Examples
    --------
    >>> import tempfile
    >>> from kg.core.model import Concept, Mention, Paper
    >>> kg = KnowledgeGraph(papers={"p": Paper("p", "On GNNs", "GNNs work.")},
    ...     concepts={"gnn": Concept("gnn", "graph neural network")},
    ...     mentions=[Mention("p", "gnn", "title", 3, 7, "GNNs", "On GNNs", "acronym")])
    >>> path = Path(tempfile.mkdtemp()) / "model.sqlite"
    >>> write_model_index(kg, path)
    >>> read_model(open_model_index(path.parent)).to_json() == kg.to_json()
    True
    """
    if dict(con.execute("SELECT key, value FROM meta")).get("whole") != 1:
        return None
    pool: dict[str, str] = {}
    share = pool.setdefault
    papers = {pid: Paper(share(pid, pid), title, abstract, json.loads(keywords), venue, year,
                         url, bool(derived), source)
              for pid, title, abstract, year, venue, url, keywords, derived, source
              in con.execute("SELECT id, title, abstract, year, venue, url, keywords, "
                             "title_derived, source FROM papers ORDER BY ord")}
    concepts = {share(cid, cid): concept_from_row(cid, data)
                for cid, data in con.execute("SELECT id, data FROM concepts ORDER BY ord")}
    sentences = {(share(p, p), n): text for p, n, text in con.execute(
        "SELECT paper, n, text FROM sentences ORDER BY paper, n")}
    mentions = [Mention(share(p, p), share(c, c), FIELDS[0] if title else FIELDS[1], start, stop,
                        share(text, text), sentences[(p, n)], share(ex, ex), score)
                for p, c, title, n, start, stop, text, ex, score in con.execute(
                    "SELECT paper, concept, title, sentence, start, stop, text, extractor, score "
                    "FROM mentions ORDER BY paper, ord")]
    relations = [Relation(share(p, p), share(t, t), FIELDS[0] if title else FIELDS[1], hs, he,
                          share(ht, ht), ts, te, share(tt, tt), sentences[(p, n)], share(ex, ex),
                          score, None if hc is None else share(hc, hc),
                          None if tc is None else share(tc, tc))
                 for p, t, title, hs, he, ht, ts, te, tt, n, ex, score, hc, tc in con.execute(
                     "SELECT paper, type, title, head_start, head_end, head_text, tail_start, "
                     "tail_end, tail_text, sentence, extractor, score, head_concept, "
                     "tail_concept FROM statements ORDER BY paper, ord")]
    salience = {(p, c): Salience(share(p, p), share(c, c), score, bool(about))
                for p, c, score, about in con.execute(
                    "SELECT paper, concept, salience, about FROM links ORDER BY paper, concept")}
    kg = KnowledgeGraph(papers=papers, concepts=concepts)
    # set after construction: their strings are shared already, which __post_init__ would
    # do again (seconds at 20,000 papers)
    kg.mentions, kg.relations = mentions, relations
    kg.__dict__["salience"] = salience  # as from_json does: stored, not computed again
    return kg


def _concept_fields(c: Concept) -> dict:
    return {"label": c.label, "type": c.type, "aliases": c.aliases, "broader": c.broader,
            "origin": c.origin, "definition": c.definition, "hidden_labels": c.hidden_labels}


def concept_from_row(cid: str, data: str) -> Concept:
    """The :class:`Concept` of a ``concepts`` row (its id and JSON fields)."""
    return Concept(cid, **json.loads(data))


def open_model_index(out: str | Path) -> sqlite3.Connection | None:
    """``OUT/model.sqlite`` opened read-only, or ``None`` if ``out`` has none of a format of
    :data:`QUESTION_FORMATS`.

    Raises a one-line :class:`StoreError` if the file is there but damaged.
    """
    path = Path(out) / MODEL_DB
    if not path.is_file():
        return None
    # immutable: nobody writes a built OUT (a build replaces the folder), so SQLite need
    # not lock or look for a journal
    uri = Path(os.path.abspath(path)).as_uri() + "?mode=ro&immutable=1"
    try:
        con = sqlite3.connect(uri, uri=True, check_same_thread=False)
        row = con.execute("SELECT value FROM meta WHERE key = 'format'").fetchone()
    except sqlite3.DatabaseError as e:
        raise index_damaged(e, path) from None
    if row is None or row[0] not in QUESTION_FORMATS:
        con.close()
        return None
    return con


def index_damaged(error: BaseException, path: str | Path) -> StoreError:
    """The one-line error for a ``model.sqlite`` that SQLite cannot read."""
    detail = " ".join(f"{type(error).__name__}: {error}".split())[:160]
    return StoreError(Messages.DAMAGED.format(path=path, detail=detail))
