"""The questions of ``docs/queries.md``, each answered once for every engine.

Every function takes a *source* — an :class:`~queries.engine.Engine`, or what
:func:`queries.engines.engine_for` turns into one (a
:class:`~kg.core.model.KnowledgeGraph`, a :class:`pyoxigraph.Store`, a
:class:`~kg.stores.bolt.BoltGraph`, an ``OUT`` folder) — fetches what it needs
through the engine interface, and does the rest here: resolving the user's
text, narrower expansion, rounding, ties and ordering. So every engine returns
the same items in the same order.

Each row says why it is there: the concepts it matched, the evidence
sentence, the shared concepts.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from kg.core.errors import Messages, NotFoundError
from queries.engine import Engine
from queries.engines import engine_for
from queries.filters import paper_filter
from queries.paths import path_rows, shortest_path
from queries.ranking import rounded
from queries.relations import paper_relation_rows
from queries.topics import Resolution, no_paper, resolve, resolve_concept

__all__ = ["concept_path", "concepts", "cooccurring", "paper", "papers", "papers_for_concept",
           "related_papers", "stats", "topic"]


def _allowed(engine: Engine, year: int | None, since: int | None, until: int | None,
             venue: str | None,
             meta: dict[str, tuple[int | None, str | None]] | None = None) -> set[str] | None:
    """The papers the time and venue filters keep (``None``: every paper).

    ``meta`` is :meth:`~queries.engine.Engine.paper_meta` when the question has read it
    already (it is not read twice).
    """
    keep = paper_filter(year, since, until, venue)
    if meta is None or not keep.active:
        return keep.papers(engine)
    return {p for p, (y, v) in meta.items() if keep.allows(y, v)}


def topic(source: Any, text: str) -> dict:
    """How ``text`` is resolved: ``resolved`` (concept, family or text), ``taken``, ``note``.

    Also ``concepts`` (labels of every concept the topic stands for, narrower ones
    included) and ``papers`` (how many papers it finds).

    Examples
    --------
    >>> from kg.core.model import Concept, KnowledgeGraph, Mention, Paper
    >>> kg = KnowledgeGraph(
    ...     papers={"p": Paper("p", "On GNNs", "GNNs work.")},
    ...     concepts={"gnn": Concept("gnn", "graph neural network", aliases=["GNN"])},
    ...     mentions=[Mention("p", "gnn", "abstract", 0, 4, "GNNs", "GNNs work.", "acronym")])
    >>> t = topic(kg, "neural networks")
    >>> t["resolved"], t["taken"], t["papers"]
    ('family', ['graph neural network'], 1)
    """
    engine = engine_for(source)
    table = engine.concept_table()
    res = resolve(engine, text, table=table)
    found = _topic_papers(engine, res)
    return {"text": text, **res.to_json(table),
            "concepts": sorted(table.label(c) for c in res.members), "papers": len(found)}


def _topic_papers(engine: Engine, res: Resolution) -> set[str]:
    if res.how == "text":
        return set(res.matches)
    found = engine.papers_of(sorted(res.members))
    return set().union(*found.values()) if found else set()


def papers_for_concept(source: Any, text: str, *, narrower: bool = True,
                       year: int | None = None, since: int | None = None,
                       until: int | None = None, venue: str | None = None) -> list[dict]:
    """Papers about the topic ``text``: a concept (or, by default, a narrower one), else
    the concepts whose names contain the words, else the papers whose text says them
    (:func:`queries.topics.resolve`).

    Rows ``id, title, year, venue, about, salience, mentions, concepts, evidence, topic``:
    whether the paper is *about* one of the matched concepts (not merely mentions it:
    :mod:`kg.core.salience`), the best salience among them, the matched concepts' labels,
    the sentence of the paper's first matching mention, and how the text was resolved
    (``concept``, ``family`` or ``text``; for ``text`` the mentions count the times the
    words stand in the paper, ``concepts`` is empty, ``about`` is false and ``salience`` 0).
    Papers *about* the topic come first, then by the number of matching mentions (most
    first), then paper id.
    ``year``, ``since``, ``until`` and ``venue`` keep only those papers
    (:mod:`queries.filters`).

    Examples
    --------
    >>> from kg.core.model import Concept, KnowledgeGraph, Mention, Paper
    >>> kg = KnowledgeGraph(
    ...     papers={"p": Paper("p", "On GNNs", "GNNs work.")},
    ...     concepts={"gnn": Concept("gnn", "graph neural network", aliases=["GNN"])},
    ...     mentions=[Mention("p", "gnn", "abstract", 0, 4, "GNNs", "GNNs work.", "acronym")])
    >>> [r["id"] for r in papers_for_concept(kg, "graph neural networks")]
    ['p']
    """
    engine = engine_for(source)
    table = engine.concept_table()
    res = resolve(engine, text, table=table)
    if res.how == "text":  # the rows need every paper's year and venue: read them once
        years = engine.paper_meta()
        return _text_rows(engine, res, _allowed(engine, year, since, until, venue, years),
                          years)
    keep = paper_filter(year, since, until, venue)
    ids = sorted(res.members) if narrower else sorted(res.taken)
    links, meta = engine.concept_links(ids)  # with each linked paper's year and venue
    salience = engine.salience(concept_ids=ids)
    rows: dict[str, dict] = {}
    first: dict[str, int] = {}
    labels = {c: table.label(c) for c in {link.concept for link in links}}
    filtered = keep.active
    for link in links:
        m = meta.get(link.paper)
        if m is None or (filtered and not keep.allows(m["year"], m["venue"])):
            continue  # a link without its paper's title is not a paper row
        row = rows.get(link.paper)
        if row is None:
            row = rows[link.paper] = {
                "id": link.paper, "title": m["title"], "year": m["year"], "venue": m["venue"],
                "about": False, "salience": 0.0, "mentions": 0, "concepts": set(),
                "evidence": link.evidence, "topic": res.how}
            first[link.paper] = link.first
        score, about = salience.get((link.paper, link.concept), (0.0, False))
        row["about"] = row["about"] or about
        row["salience"] = max(row["salience"], score)
        row["mentions"] += link.mentions
        row["concepts"].add(labels[link.concept])
        if link.first < first[link.paper]:
            first[link.paper], row["evidence"] = link.first, link.evidence
    for row in rows.values():
        row["concepts"] = sorted(row["concepts"])
    return sorted(rows.values(), key=lambda r: (not r["about"], -r["mentions"], r["id"]))


def _text_rows(engine: Engine, res: Resolution, allowed: set[str] | None,
               meta: dict[str, tuple[int | None, str | None]]) -> list[dict]:
    """The rows of a topic resolved by text: the papers that say the words (``meta``: the
    papers' year and venue, :meth:`~queries.engine.Engine.paper_meta`)."""
    ids = sorted(p for p in res.matches if allowed is None or p in allowed)
    titles = engine.titles(ids)
    rows: list[dict] = []
    for p in ids:
        year, venue = meta.get(p, (None, None))
        rows.append({"id": p, "title": titles.get(p, ""), "year": year, "venue": venue,
                     "about": False, "salience": 0.0, "mentions": res.matches[p].times,
                     "concepts": [], "evidence": res.matches[p].sentence, "topic": "text"})
    return sorted(rows, key=lambda r: (-r["mentions"], r["id"]))


def papers(source: Any, *, year: int | None = None, since: int | None = None,
           until: int | None = None, venue: str | None = None) -> list[dict]:
    """Every paper (those the time and venue filters keep), by id.

    Rows ``id, title, year, venue, concepts`` (how many concepts the paper mentions).

    Examples
    --------
    >>> from kg.core.model import Concept, KnowledgeGraph, Mention, Paper
    >>> kg = KnowledgeGraph(
    ...     papers={"p": Paper("p", "On GNNs", "GNNs work.", year=2024),
    ...             "q": Paper("q", "Other", "Nothing.", year=2020)},
    ...     concepts={"gnn": Concept("gnn", "graph neural network")},
    ...     mentions=[Mention("p", "gnn", "abstract", 0, 4, "GNNs", "GNNs work.", "acronym")])
    >>> [(r["id"], r["concepts"]) for r in papers(kg)], [r["id"] for r in papers(kg, since=2021)]
    ([('p', 1), ('q', 0)], ['p'])
    """
    keep = paper_filter(year, since, until, venue)
    return [{"id": p, "title": t, "year": y, "venue": v, "concepts": n}
            for p, t, y, v, n in engine_for(source).paper_list() if keep.allows(y, v)]


def concepts(source: Any, *, type: str | None = None,  # noqa: A002
             year: int | None = None, since: int | None = None, until: int | None = None,
             venue: str | None = None) -> list[dict]:
    """Concepts with their paper counts, most papers first, then label (then id).

    Rows ``id, label, type, papers, aliases, broader`` (broader concepts by label).
    With a time or venue filter, ``papers`` counts only those papers.

    Examples
    --------
    >>> from kg.core.model import Concept, KnowledgeGraph
    >>> kg = KnowledgeGraph(concepts={"gnn": Concept("gnn", "graph neural network",
    ...                                              type="method")})
    >>> [(r["label"], r["papers"]) for r in concepts(kg, type="method")]
    [('graph neural network', 0)]
    """
    engine = engine_for(source)
    table = engine.concept_table()
    counts = _counts(engine, _allowed(engine, year, since, until, venue))
    rows = []
    for c in table.concepts.values():
        if type and c.type != type:
            continue
        rows.append({
            "id": c.id, "label": c.label, "type": c.type, "papers": counts.get(c.id, 0),
            "aliases": sorted(set(c.aliases)),
            "broader": [table.label(b) for b in sorted(c.broader) if b in table.concepts],
        })
    return sorted(rows, key=lambda r: (-r["papers"], r["label"].lower(), r["id"]))


def _counts(engine: Engine, allowed: set[str] | None) -> dict[str, int]:
    """Papers per concept (direct mentions), among ``allowed`` papers if given."""
    if allowed is None:
        return engine.paper_counts()
    counts: dict[str, int] = {}
    for c, papers in engine.papers_of(sorted(engine.paper_counts())).items():
        n = len(papers & allowed)
        if n:
            counts[c] = n
    return counts


def paper(source: Any, paper_id: str) -> dict:
    """One paper with its concepts, each with its salience, whether the paper is *about*
    it (:mod:`kg.core.salience`), its mention count and evidence sentences, and the
    relations between concepts that it states (:func:`queries.relations.paper_relation_rows`).

    Concepts are ordered by salience (highest first: the *about* ones come first), then
    label, then id.

    Raises
    ------
    NotFoundError
        For an unknown id, with the closest ids.

    Examples
    --------
    >>> from kg.core.model import Concept, KnowledgeGraph, Mention, Paper
    >>> kg = KnowledgeGraph(
    ...     papers={"p": Paper("p", "On GNNs", "GNNs work.")},
    ...     concepts={"gnn": Concept("gnn", "graph neural network", aliases=["GNN"])},
    ...     mentions=[Mention("p", "gnn", "abstract", 0, 4, "GNNs", "GNNs work.", "acronym")])
    >>> paper(kg, "p")["concepts"][0]["evidence"]
    ['GNNs work.']
    """
    engine = engine_for(source)
    record = engine.paper_record(paper_id)
    if record is None:
        raise no_paper(paper_id, engine.paper_ids)
    table = engine.concept_table()
    salience = engine.salience(paper_ids=[paper_id])
    rows = [{"id": link.concept, "label": table.label(link.concept),
             "type": table.concepts[link.concept].type,
             "about": salience.get((paper_id, link.concept), (0.0, False))[1],
             "salience": salience.get((paper_id, link.concept), (0.0, False))[0],
             "mentions": link.mentions, "evidence": list(link.sentences)}
            for link in engine.paper_links(paper_id) if link.concept in table.concepts]
    return {
        "id": paper_id, "title": record["title"], "year": record["year"],
        "venue": record["venue"], "url": record["url"], "abstract": record["abstract"],
        "concepts": sorted(rows, key=lambda r: (not r["about"], -r["salience"], r["label"],
                                                r["id"])),
        "relations": paper_relation_rows(table, engine.paper_relations(paper_id)),
    }


def related_papers(source: Any, paper_id: str, *, limit: int = 10, year: int | None = None,
                   since: int | None = None, until: int | None = None,
                   venue: str | None = None) -> list[dict]:
    """Papers that share concepts with ``paper_id``, rare shared concepts weighing more, and
    concepts both papers are *about* more than those they merely mention.

    The score is the sum over shared concepts (direct mentions only) of the concept's idf
    times the weight of each paper's link to it: 1 for a concept the paper is *about*,
    :data:`~kg.core.salience.MENTION_WEIGHT` (0.5) for one it only mentions
    (:mod:`kg.core.salience`); rounded to 6 decimals; papers with score 0 are left out;
    best first, then by id.
    A time or venue filter keeps only those papers among the related ones.

    Examples
    --------
    >>> from kg.core.model import Concept, KnowledgeGraph, Mention, Paper
    >>> m = lambda p, c: Mention(p, c, "abstract", 0, 1, c, c + ".", "lexicon")
    >>> kg = KnowledgeGraph(papers={p: Paper(p, p.upper(), "x") for p in "abc"},
    ...     concepts={c: Concept(c, c) for c in ("gnn", "dl")},
    ...     mentions=[m("a", "gnn"), m("a", "dl"), m("b", "gnn"), m("b", "dl"), m("c", "dl")])
    >>> [(r["id"], r["score"], r["shared"]) for r in related_papers(kg, "a")]
    [('b', 0.405465, ['dl', 'gnn'])]

    ("dl" is in every paper: idf 0, so "c" scores 0 and is left out; both papers are *about*
    "gnn", so its idf counts in full.)
    """
    engine = engine_for(source)
    if engine.paper_record(paper_id) is None:
        raise no_paper(paper_id, engine.paper_ids)
    allowed = _allowed(engine, year, since, until, venue)
    found = engine.related_scores(paper_id, limit if allowed is None else -1)
    scored = [(rounded(score), other) for other, score in found
              if allowed is None or other in allowed]
    ranked = sorted((t for t in scored if t[0] > 0), key=lambda t: (-t[0], t[1]))[:limit]
    if not ranked:
        return []
    others = [o for _, o in ranked]
    table = engine.concept_table()
    concepts_of = engine.paper_concepts([paper_id, *others])
    mine = concepts_of.get(paper_id, set())
    titles = engine.titles(others)
    return [{"id": o, "title": titles[o], "score": s,
             "shared": sorted(table.label(c) for c in mine & concepts_of.get(o, set())
                              if c in table.concepts)}
            for s, o in ranked]


def cooccurring(source: Any, text: str, *, limit: int = 20, year: int | None = None,
                since: int | None = None, until: int | None = None,
                venue: str | None = None) -> list[dict]:
    """Concepts mentioned by the papers about the topic ``text`` (resolved as in
    :func:`papers_for_concept`: a concept and its narrower ones, a family, or a text match).

    The topic's concepts (the anchors) are left out; rows
    ``id, label, type, papers, paper_ids`` are ordered by the number of such
    papers (most first), then concept id. A time or venue filter keeps only those papers.

    Examples
    --------
    >>> from kg.core.model import Concept, KnowledgeGraph, Mention, Paper
    >>> m = lambda p, c: Mention(p, c, "abstract", 0, 1, c, c + ".", "lexicon")
    >>> kg = KnowledgeGraph(papers={p: Paper(p, p, "x") for p in "ab"},
    ...     concepts={c: Concept(c, c) for c in ("gnn", "calibration", "llm")},
    ...     mentions=[m("a", "gnn"), m("a", "calibration"), m("b", "gnn"), m("b", "llm"),
    ...               m("b", "calibration")])
    >>> [(r["id"], r["papers"]) for r in cooccurring(kg, "gnn")]
    [('calibration', 2), ('llm', 1)]
    """
    engine = engine_for(source)
    table = engine.concept_table()
    res = resolve(engine, text, table=table)
    anchors = sorted(res.members)
    allowed = _allowed(engine, year, since, until, venue)
    if res.how == "text" or allowed is not None:
        # the papers are known (or must be filtered): count their concepts here
        papers = _topic_papers(engine, res)
        papers = papers if allowed is None else papers & allowed
        by_concept: dict[str, set[str]] = {}
        for p, cs in engine.paper_concepts(sorted(papers)).items():
            for d in cs:
                by_concept.setdefault(d, set()).add(p)
        counts = {d: len(ps) for d, ps in by_concept.items()}
    else:
        counts = engine.cooccurrence_counts(anchors)
    ranked = sorted((d for d in counts if d not in set(anchors) and d in table.concepts),
                    key=lambda d: (-counts[d], d))[:limit]
    if not ranked:
        return []
    if res.how == "text" or allowed is not None:
        found = {d: by_concept[d] for d in ranked}
    else:
        found = engine.cooccurrence_papers(anchors, ranked)
    return [{"id": d, "label": table.label(d), "type": table.concepts[d].type,
             "papers": len(found.get(d, ())), "paper_ids": sorted(found.get(d, ()))}
            for d in ranked]


def concept_path(source: Any, a: str, b: str, *, year: int | None = None,
                 since: int | None = None, until: int | None = None,
                 venue: str | None = None) -> list[dict]:
    """The shortest path from concept ``a`` to concept ``b`` through papers.

    One row per paper step (see :func:`queries.paths.path_rows`); an empty
    list when ``a`` and ``b`` name the same concept. ``a`` and ``b`` name concepts
    (label, alias or acronym: step 1 of :func:`queries.topics.resolve`). A time
    or venue filter walks through those papers only.

    Raises
    ------
    NotFoundError
        When a concept is unknown or no path links them.

    Examples
    --------
    >>> from kg.core.model import Concept, KnowledgeGraph, Mention, Paper
    >>> m = lambda p, c: Mention(p, c, "abstract", 0, 1, c, p + " uses " + c, "lexicon")
    >>> kg = KnowledgeGraph(papers={p: Paper(p, p, "x") for p in ("p1", "p2")},
    ...     concepts={c: Concept(c, c) for c in ("x", "y", "z")},
    ...     mentions=[m("p1", "x"), m("p1", "y"), m("p2", "y"), m("p2", "z")])
    >>> [(r["from"], r["paper"], r["to"]) for r in concept_path(kg, "x", "z")]
    [('x', 'p1', 'y'), ('y', 'p2', 'z')]
    """
    engine = engine_for(source)
    table = engine.concept_table()
    ca, cb = resolve_concept(table, a), resolve_concept(table, b)
    allowed = _allowed(engine, year, since, until, venue)
    def papers_of(ids: list[str]) -> dict[str, set[str]]:
        found = engine.papers_of(ids)
        return found if allowed is None else {c: ps & allowed for c, ps in found.items()}

    path = shortest_path(ca.id, cb.id, papers_of, engine.paper_concepts)
    if path is None:
        raise NotFoundError(Messages.NO_PATH.format(a=ca.label, b=cb.label))
    if len(path) == 1:
        return []
    steps = [(path[i], path[j]) for i in range(1, len(path), 2) for j in (i - 1, i + 1)]
    return path_rows(path, labels={c: table.label(c) for c in path[::2]},
                     titles=engine.titles(path[1::2]), evidence=engine.sentences(steps))


def stats(source: Any, *, year: int | None = None, since: int | None = None,
          until: int | None = None, venue: str | None = None) -> dict:
    """Corpus statistics: counts, concepts per type, the 10 concepts with most papers.

    With a time or venue filter: ``papers`` counts those papers, ``concepts`` and
    ``by_type`` the concepts they mention, ``mentions`` their mentions and
    ``top_concepts`` ranks by papers among them.

    Examples
    --------
    >>> from kg.core.model import KnowledgeGraph
    >>> stats(KnowledgeGraph())["papers"]
    0
    """
    engine = engine_for(source)
    table = engine.concept_table()
    allowed = _allowed(engine, year, since, until, venue)
    counts = _counts(engine, allowed)
    if allowed is None:
        totals = engine.totals()
        kept = list(table.concepts.values())
    else:
        kept = [c for cid, c in table.concepts.items() if counts.get(cid)]
        profile = engine.profile(sorted(counts))
        totals = {"papers": len(allowed), "concepts": len(kept),
                  "mentions": sum(n for p in allowed for n, _ in profile.get(p, {}).values())}
    top = sorted((c.id for c in kept), key=lambda c: (-counts.get(c, 0), c))[:10]
    return {
        "papers": totals["papers"], "concepts": totals["concepts"],
        "mentions": totals["mentions"],
        "by_type": dict(sorted(Counter(c.type for c in kept).items())),
        "top_concepts": [{"id": c, "label": table.label(c), "papers": counts.get(c, 0)}
                         for c in top],
    }
