"""Papers that bridge two topics, and the concepts that connect them, with reasons.

A *topic* is user text resolved by :func:`queries.topics.resolve`: a concept
plus all its narrower concepts, else the family of concepts whose names contain
the words (with theirs), else the papers whose title or abstract says the words
(then the topic's side of a paper is one pseudo-concept, the words themselves,
with the paper's count of them and an idf of ``ln(N / papers saying them)``).
Engines (:class:`queries.engine.Engine`) only *fetch*: the concepts (for
resolving text), each paper's mentions of a set of concepts (a *profile*), idf
values, the concepts of a set of papers, titles, evidence sentences and path
neighbours. :func:`bridges` scores and assembles, so every engine ranks identically.
The full description, with a worked example, is ``docs/bridges.md``.

Scores
------
For a paper *p* and a concept *c* it mentions ``m`` times, ``t`` of them in
the title::

    weight(p, c) = (1 + [t > 0]) * (2 - 1/m)     # repeated mentions saturate at 2, a title doubles
    spec(c)      = 1 + idf(c) = 1 + ln(N / df(c))   # rare concepts count more
    side(p, X)   = sum over c in X of spec(c) * weight(p, c)
    score(p)     = 2 * side(p, A) * side(p, B) / (side(p, A) + side(p, B))

The harmonic mean rewards papers that are substantially about *both* topics.

Links: by default only the concepts a paper is *about* count (:mod:`kg.core.salience`:
its best concepts by salience, or declared keywords): a paper that merely mentions a
topic's concept in passing is not on that side, and connectors are reached through
*about* links too. ``all_mentions=True`` (``kg bridge --all-mentions``) counts every
mention, as before salience existed. The fallback shortest path walks every link.

A *connector* is a concept outside both topics that papers about A only and
papers about B only both *reach*: they mention it, or a concept directly
under it (one level of ``broader``). Only concepts some paper mentions
directly can connect (so organising concepts like "machine learning" never
link everything), and *hubs* never do: concepts reached (mentioned, or a
concept directly under them) by more than ``hub_share`` of the papers (10% by
default) and by more than :data:`HUB_MIN_PAPERS` papers ("language model",
"neural network"); a note names those left out. Its score is
``ln(N / R(c)) * 2 * nA * nB / (nA + nB)`` with ``R(c)`` the papers of the
corpus reaching it and ``nA``/``nB`` the A-only and B-only papers reaching it.
Connectors are computed when there are fewer than ``min_direct`` direct
bridges. When there is neither a bridge nor a connector, the answer is the
shortest concept path from any concept of A to any concept of B through
papers (:func:`queries.paths.shortest_path`), given as one connector of kind
``"path"``; when even that does not exist, both lists are empty and a note
says that the corpus does not connect the topics.

Overlapping topics: when topic B is narrower than topic A (B's concept is
under A's), B's concepts are taken out of A, so the bridges of
"contrastive learning" and "graph contrastive learning" are the papers that
mention graph contrastive learning *and* some other contrastive learning
(and the other way round). Two texts naming the same concept are an error.
Concepts under both topics through different parents stay on both sides.

Scores are rounded to 6 decimals before ranking; ties go to the smaller id.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from kg.core.errors import KGError, Messages
from queries.concept_table import ConceptTable
from queries.engine import Engine, Profile
from queries.engines import engine_for
from queries.filters import paper_filter
from queries.paths import shortest_path
from queries.ranking import rounded
from queries.topics import Resolution, TextMatch, resolve

__all__ = ["DEFAULT_HUB_SHARE", "HUB_MIN_PAPERS", "SameTopicError", "Topic", "bridges",
           "harmonic", "hubs", "rank_bridges", "rank_connectors", "reach", "resolve_topic",
           "separate", "side_strength", "spec", "weight"]

#: a concept mentioned by more than this share of the papers is a hub (never a connector)
DEFAULT_HUB_SHARE = 0.1
#: ... when it is also mentioned by more than this many papers (small corpora have no hubs)
HUB_MIN_PAPERS = 5

# virtual end points of the path search: every concept of a topic at once
_A, _B = "\x00topic-a", "\x00topic-b"


class SameTopicError(KGError):
    """Both topic texts name the same concept."""


@dataclass(frozen=True)
class Topic:
    """A resolved topic: the concepts it stands for (or the papers that say its words)."""

    text: str
    #: the named concept's id (``concept``), else ``None``
    id: str | None
    label: str
    members: frozenset[str]
    #: concepts taken out because they belong to the other, narrower topic
    without: frozenset[str] = frozenset()
    #: how the text was resolved (:data:`queries.topics.HOW`) and what it took
    resolution: Resolution | None = None

    @property
    def how(self) -> str:
        return self.resolution.how if self.resolution else "concept"

    @property
    def text_id(self) -> str:
        """The pseudo-concept standing for the words of a text topic."""
        return "\x00text:" + self.text

    def to_json(self, labels: Mapping[str, str], papers: int,
                table: ConceptTable | None = None) -> dict:
        """The topic as the answer gives it: how it was resolved and what it took."""
        ids = sorted(c for c in self.members if c in labels)
        taken = self.resolution.taken if self.resolution else ((self.id,) if self.id else ())
        note = self.resolution.describe(table) if self.resolution and table else ""
        return {"text": self.text, "id": self.id, "label": self.label,
                "concepts": sorted(labels[c] for c in ids), "concept_ids": ids,
                "papers": papers, "resolved": self.how,
                "taken": [labels[c] for c in taken if c in labels], "note": note}


def resolve_topic(engine: Engine, text: str, table: ConceptTable | None = None) -> Topic:
    """Resolve ``text`` to a topic (raises ``NotFoundError`` with suggestions)."""
    table = table or engine.concept_table()
    res = resolve(engine, text, table=table)
    cid = res.taken[0] if res.how == "concept" else None
    return Topic(text, cid, res.label(table), res.members, resolution=res)


def hubs(counts: Mapping[str, int], papers: int, share: float = DEFAULT_HUB_SHARE) -> set[str]:
    """The concepts mentioned by more than ``share`` of ``papers`` (and > HUB_MIN_PAPERS).

    Examples
    --------
    >>> sorted(hubs({"lm": 40, "gnn": 6, "rare": 1}, 100))
    ['lm']
    >>> hubs({"lm": 4}, 10)
    set()
    """
    return {c for c, n in counts.items() if n > share * papers and n > HUB_MIN_PAPERS}


def separate(ta: Topic, tb: Topic) -> tuple[Topic, Topic, list[str]]:
    """Take a narrower topic's concepts out of the broader one; notes say so.

    Examples
    --------
    >>> a = Topic("cl", "cl", "contrastive learning", frozenset({"cl", "gcl"}))
    >>> b = Topic("gcl", "gcl", "graph contrastive learning", frozenset({"gcl"}))
    >>> sorted(separate(a, b)[0].members)
    ['cl']
    """
    if ta.members and ta.members == tb.members:
        raise SameTopicError(Messages.SAME_TOPIC.format(a=ta.text, b=tb.text, label=ta.label))
    if tb.members and tb.members < ta.members:
        note = (f"'{tb.label}' is narrower than '{ta.label}': its concepts count for B only")
        return (Topic(ta.text, ta.id, ta.label, ta.members - tb.members,
                      ta.members & tb.members, ta.resolution), tb, [note])
    if ta.members and ta.members < tb.members:
        note = (f"'{ta.label}' is narrower than '{tb.label}': its concepts count for A only")
        return (ta, Topic(tb.text, tb.id, tb.label, tb.members - ta.members,
                          ta.members & tb.members, tb.resolution), [note])
    return ta, tb, []


def weight(mentions: int, in_title: bool) -> float:
    """How strongly one paper is about one concept.

    Examples
    --------
    >>> weight(1, False), weight(2, False), weight(1, True)
    (1.0, 1.5, 2.0)
    """
    return (1 + int(in_title)) * (2 - 1 / mentions)


def spec(idf: float) -> float:
    """Specificity of a concept from its idf."""
    return 1 + idf


def harmonic(a: float, b: float) -> float:
    """The harmonic mean of two non-negative numbers (0 when both are 0)."""
    return 2 * a * b / (a + b) if a + b else 0.0


def side_strength(concepts: Mapping[str, tuple[int, bool]], idf: Mapping[str, float]) -> float:
    """``side(p, X)`` for one paper's profile restricted to a topic (summed in id order)."""
    return sum(spec(idf.get(c, 0.0)) * weight(*concepts[c]) for c in sorted(concepts))


def rank_bridges(a: Profile, b: Profile, idf: Mapping[str, float]) -> list[tuple[str, float]]:
    """Papers in both profiles with their bridge score, best first.

    Examples
    --------
    >>> a = {"p": {"gnn": (1, False)}, "q": {"gnn": (3, True)}}
    >>> b = {"p": {"llm": (1, False)}, "q": {"llm": (1, False)}}
    >>> rank_bridges(a, b, {"gnn": 0.5, "llm": 1.0})
    [('q', 2.857143), ('p', 1.714286)]
    """
    rows = [(p, rounded(harmonic(side_strength(a[p], idf), side_strength(b[p], idf))))
            for p in a.keys() & b.keys()]
    return sorted(rows, key=lambda r: (-r[1], r[0]))


def reach(concepts: Collection[str], broader: Mapping[str, Collection[str]]) -> dict[str, str]:
    """Concepts a paper reaches: its own, and one level up (``{reached: via}``).

    One level up lets "generative model" connect a paper on Private Evolution with
    one on diffusion models; going further would connect everything through
    "machine learning".

    Examples
    --------
    >>> reach({"dm"}, {"dm": ["generative-model"]})
    {'dm': 'dm', 'generative-model': 'dm'}
    """
    out = {c: c for c in sorted(concepts)}
    for c in sorted(concepts):
        for b in sorted(broader.get(c, ())):
            out.setdefault(b, c)
    return out


def rank_connectors(
    a_papers: set[str], b_papers: set[str], paper_concepts: Mapping[str, set[str]],
    broader: Mapping[str, Collection[str]], exclude: set[str], idf: Mapping[str, float],
) -> list[tuple[str, float, list[str], list[str]]]:
    """Concepts outside both topics reached by A-only and by B-only papers, best first.

    ``idf`` holds the concepts mentioned directly somewhere; only those can connect
    (``exclude`` holds the topics' concepts and the hubs). Papers on both sides are
    direct bridges, not ends of a connector: a connector always links *different* papers.

    Examples
    --------
    >>> pcs = {"p": {"dp"}, "q": {"dm"}}
    >>> rank_connectors({"p"}, {"q"}, pcs, {"dp": ["gen"], "dm": ["gen"]}, {"dp", "dm"},
    ...                 {"gen": 1.5, "dp": 2.0, "dm": 2.0})
    [('gen', 1.5, ['p'], ['q'])]
    """
    only_a, only_b = a_papers - b_papers, b_papers - a_papers
    on_a: dict[str, set[str]] = {}
    on_b: dict[str, set[str]] = {}
    for side, papers in ((on_a, only_a), (on_b, only_b)):
        for p in papers:
            for c in reach(paper_concepts.get(p, set()), broader):
                if c not in exclude and c in idf:
                    side.setdefault(c, set()).add(p)
    rows = []
    for c in on_a.keys() & on_b.keys():
        score = rounded(idf[c] * harmonic(len(on_a[c]), len(on_b[c])))
        rows.append((c, score, sorted(on_a[c]), sorted(on_b[c])))
    return sorted(rows, key=lambda r: (-r[1], r[0]))


def _strongest(prof: Mapping[str, tuple[int, bool]], idf: Mapping[str, float]) -> str:
    """The concept a paper is most about (spec x weight, then id)."""
    return min(prof, key=lambda c: (-rounded(spec(idf.get(c, 0.0)) * weight(*prof[c])),
                                    c))


def _best_paper(papers: Collection[str], prof: Profile, idf: Mapping[str, float]) -> str:
    """The paper most about its topic (side strength, then id)."""
    return min(papers, key=lambda p: (-rounded(side_strength(prof[p], idf)), p))


# -- the answer ----------------------------------------------------------------------------

def bridges(source: Any, a: str, b: str, *, limit: int = 10, min_direct: int = 3,
            hub_share: float = DEFAULT_HUB_SHARE, all_mentions: bool = False,
            year: int | None = None, since: int | None = None, until: int | None = None,
            venue: str | None = None) -> dict:
    """Papers that connect topic ``a`` with topic ``b``, and why (any engine).

    Parameters
    ----------
    source : Engine, KnowledgeGraph, pyoxigraph.Store, BoltGraph or OUT folder
        What to answer from (see :func:`queries.engines.engine_for`).
    a, b : str
        Topics as text ("graph neural networks", "LLMs", "uncertainty").
    limit : int
        Bridges and connectors to return at most.
    min_direct : int
        Connectors (indirect bridges) are computed when fewer direct bridges
        than this exist.
    hub_share : float
        Concepts mentioned by more than this share of the papers (and by more
        than :data:`HUB_MIN_PAPERS`) are hubs: never connectors.
    all_mentions : bool
        Count every paper–concept link, not only those the paper is *about*.
    year, since, until, venue
        Only those papers (:mod:`queries.filters`); idf stays the whole graph's.

    Returns
    -------
    dict
        ``{"a", "b", "bridges": [{"id", "title", "score", "a_concepts",
        "b_concepts", "evidence"}], "connectors": [{"kind", "id", "label", "score",
        "a_papers", "b_papers", "path", "evidence"}], "notes": [...]}``, best first.
        ``a`` and ``b`` say how each text was resolved (``resolved``: concept,
        family or text; ``taken``: the concepts it named).

    Raises
    ------
    NotFoundError
        When a topic names no concept, no concept name contains it and no paper
        says it (with "did you mean" suggestions).
    SameTopicError
        When both texts name the same concept.

    Examples
    --------
    >>> from kg.core.model import Concept, KnowledgeGraph, Mention, Paper
    >>> m = lambda p, c: Mention(p, c, "abstract", 0, 1, "x", f"{p} uses {c}.", "lexicon")
    >>> kg = KnowledgeGraph(
    ...     papers={p: Paper(p, p.upper(), "x") for p in ("p1", "p2")},
    ...     concepts={c: Concept(c, c) for c in ("gnn", "llm")},
    ...     mentions=[m("p1", "gnn"), m("p1", "llm"), m("p2", "gnn")])
    >>> [r["id"] for r in bridges(kg, "gnn", "llm", all_mentions=True)["bridges"]]
    ['p1']
    """
    engine = engine_for(source)
    table = engine.concept_table()
    ta, tb, notes = separate(resolve_topic(engine, a, table), resolve_topic(engine, b, table))
    labels = {c: x.label for c, x in table.concepts.items()}
    filt = paper_filter(year, since, until, venue)
    allowed = filt.papers(engine)
    n_papers = engine.totals()["papers"]
    pa, pb = (_profile(engine, ta, allowed, all_mentions),
              _profile(engine, tb, allowed, all_mentions))
    idf = dict(engine.idf({c for prof in (pa, pb) for cs in prof.values() for c in cs}))
    text_evidence: dict[tuple[str, str], str] = {}
    for t in (ta, tb):
        if t.how == "text" and t.resolution:
            labels[t.text_id] = f"“{t.text.strip()}” (in the text)"
            idf[t.text_id] = math.log(n_papers / len(t.resolution.matches))
            text_evidence.update({(p, t.text_id): m.sentence
                                  for p, m in t.resolution.matches.items()})
    if allowed is not None:
        notes.append(f"only {filt.describe()} ({len(allowed)})")
    ranked = rank_bridges(pa, pb, idf)
    shown = ranked[:limit]
    plans: list[dict] = []
    if len(ranked) < min_direct:
        plans = _connector_plans(engine, table, ta, tb, pa, pb, idf, limit, n_papers,
                                 hub_share, notes, all_mentions)
    if not ranked and not plans and pa and pb and ta.members and tb.members:
        plans = _path_plan(engine, ta, tb, allowed)
    pairs = {(p, c) for p, _ in shown for c in (*pa[p], *pb[p])}
    pairs |= {(s["paper"], s["concept"]) for plan in plans for s in plan["links"]}
    real = {(p, c) for p, c in pairs if c in table.concepts}
    evidence = {k: s[0] for k, s in engine.sentences(real).items() if s} if real else {}
    evidence.update({k: v for k, v in text_evidence.items() if k in pairs})
    papers = {p for p, _ in shown} | {s["paper"] for plan in plans for s in plan["links"]}
    titles = engine.titles(papers) if papers else {}
    rows = []
    for p, score in shown:
        a_c, b_c = sorted(pa[p]), sorted(pb[p])
        rows.append({
            "id": p, "title": titles[p], "score": score,
            "a_concepts": [labels[c] for c in a_c], "b_concepts": [labels[c] for c in b_c],
            "evidence": [{"side": side, "concept": labels[c], "sentence": evidence[(p, c)]}
                         for side, cs in (("a", a_c), ("b", b_c)) for c in cs
                         if (p, c) in evidence],
        })
    connectors = [_connector(plan, labels, titles, evidence) for plan in plans]
    if not rows and not connectors:
        notes.append(f"the corpus does not connect '{ta.label}' and '{tb.label}'")
    return {"a": ta.to_json(labels, len(pa), table), "b": tb.to_json(labels, len(pb), table),
            "bridges": rows, "connectors": connectors, "notes": notes}


def _profile(engine: Engine, t: Topic, allowed: set[str] | None,
             all_mentions: bool = True) -> Profile:
    """Each paper's mentions of the topic (of its words, for a text topic); without
    ``all_mentions``, only of the topic's concepts the paper is *about*."""
    if t.how == "text" and t.resolution:
        matches: Mapping[str, TextMatch] = t.resolution.matches
        prof: Profile = {p: {t.text_id: (m.times, m.in_title)} for p, m in matches.items()}
    else:
        prof = engine.profile(t.members)
        if not all_mentions:
            about = _about(engine.salience(concept_ids=t.members))
            prof = {p: kept for p, cs in prof.items()
                    if (kept := {c: v for c, v in cs.items() if (p, c) in about})}
    return prof if allowed is None else {p: v for p, v in prof.items() if p in allowed}


def _about(salience: Mapping[tuple[str, str], tuple[float, bool]]) -> set[tuple[str, str]]:
    """The (paper, concept) links that are *about* links."""
    return {k for k, (_, about) in salience.items() if about}


def _connector_plans(engine: Engine, table: ConceptTable, ta: Topic, tb: Topic, pa: Profile,
                     pb: Profile, idf: dict[str, float], limit: int, n_papers: int,
                     hub_share: float, notes: list[str], all_mentions: bool) -> list[dict]:
    only_a, only_b = set(pa) - set(pb), set(pb) - set(pa)
    if not only_a or not only_b:
        return []
    paper_concepts = engine.paper_concepts(only_a | only_b)
    if not all_mentions:  # a side's papers reach what they are about (and the topic's links)
        about = _about(engine.salience(paper_ids=only_a | only_b))
        paper_concepts = {p: {c for c in cs if (p, c) in about or c in pa.get(p, pb.get(p, {}))}
                          for p, cs in paper_concepts.items()}
    broader = {c: table.concepts[c].broader
               for cs in paper_concepts.values() for c in cs if c in table.concepts}
    reached = {r for cs in paper_concepts.values() for r in reach(cs, broader)}
    exclude = set(ta.members | tb.members | ta.without | tb.without)
    idf.update(engine.idf(reached - exclude - idf.keys()))
    # a connector is as common as the papers that reach it (mention it or a concept directly
    # under it): "neural network" is reached through every architecture
    candidates = sorted(c for c in reached - exclude if c in idf)
    under: dict[str, list[str]] = {}
    for d, concept in table.concepts.items():
        for b in concept.broader:
            under.setdefault(b, []).append(d)
    found_papers = engine.papers_of(sorted(
        {c for c in candidates} | {d for c in candidates for d in under.get(c, ())}))
    counts = {c: len(set().union(found_papers.get(c, set()),
                                 *(found_papers.get(d, set()) for d in under.get(c, ()))))
              for c in candidates}
    hub_ids = hubs(counts, n_papers, hub_share)
    if hub_ids:
        named = sorted(hub_ids, key=lambda c: (-counts[c], c))
        shown = ", ".join(labels_of(table, named[:5])) + (", …" if len(named) > 5 else "")
        notes.append(f"{len(named)} hub concept{'s' if len(named) != 1 else ''} (reached by "
                     f"more than {hub_share:.0%} of the papers) not used as connectors: {shown}")
    exclude |= hub_ids
    reach_idf = {c: math.log(n_papers / counts[c]) for c in candidates if counts[c]}
    plans = []
    found = rank_connectors(only_a, only_b, paper_concepts, broader, exclude, reach_idf)
    for c, score, a_papers, b_papers in found[:limit]:
        links, path = [], []
        for side, papers, prof in (("a", a_papers, pa), ("b", b_papers, pb)):
            p = _best_paper(papers, prof, idf)
            topic_c = _strongest(prof[p], idf)
            via = reach(paper_concepts[p], broader)[c]
            links += [{"side": side, "paper": p, "concept": topic_c},
                      {"side": side, "paper": p, "concept": via}]
            steps = [("concept", topic_c), ("paper", p)]
            path += steps if side == "a" else steps[::-1]
            if side == "a":
                path.append(("concept", c))
        plans.append({"kind": "concept", "id": c, "score": score, "a_papers": a_papers,
                      "b_papers": b_papers, "path": path, "links": links})
    return plans


def labels_of(table: ConceptTable, ids: Collection[str]) -> list[str]:
    """The labels of ``ids``, in their order."""
    return [table.label(c) for c in ids]


def _path_plan(engine: Engine, ta: Topic, tb: Topic, allowed: set[str] | None) -> list[dict]:
    """The shortest concept path from any concept of A to any of B, as one plan."""
    ends = {_A: ta.members, _B: tb.members}

    def papers_of(ids: list[str]) -> dict[str, set[str]]:
        real = [i for i in ids if i not in ends]
        wanted = real + sorted({m for i in ids if i in ends for m in ends[i]})
        found = engine.papers_of(wanted)
        if allowed is not None:
            found = {c: ps & allowed for c, ps in found.items()}
        out = {i: set(found.get(i, ())) for i in real}
        for i in ids:
            if i in ends:
                out[i] = {p for m in ends[i] for p in found.get(m, ())}
        return out

    def concepts_of(ids: list[str]) -> dict[str, set[str]]:
        found = engine.paper_concepts(ids)
        cache.update(found)
        return found

    cache: dict[str, set[str]] = {}
    path = shortest_path(_A, _B, papers_of, concepts_of)
    if path is None:
        return []
    first, last = path[1], path[-2]
    for p in (first, last):
        if p not in cache:
            cache.update(engine.paper_concepts([p]))
    path[0] = min(cache[first] & ta.members)
    path[-1] = min(cache[last] & tb.members)
    links, steps = [], []
    n_papers = len(path) // 2
    for k, i in enumerate(range(1, len(path), 2)):
        side = "a" if k == 0 else "b" if k == n_papers - 1 else "via"
        links += [{"side": side, "paper": path[i], "concept": path[i - 1]},
                  {"side": side, "paper": path[i], "concept": path[i + 1]}]
    for i, x in enumerate(path):
        steps.append(("paper" if i % 2 else "concept", x))
    return [{"kind": "path", "id": None, "score": None, "a_papers": [first],
             "b_papers": [last], "path": steps, "links": links}]


def _connector(plan: dict, labels: Mapping[str, str], titles: Mapping[str, str],
               evidence: Mapping[tuple[str, str], str]) -> dict:
    """One connector (or the fallback path) with its path and evidence."""
    path = [{"kind": kind, "id": x, "label": labels[x]} if kind == "concept"
            else {"kind": kind, "id": x, "title": titles[x]} for kind, x in plan["path"]]
    middle = [s["label"] for s in path[2:-2] if s["kind"] == "concept"]
    label = labels[plan["id"]] if plan["kind"] == "concept" else " → ".join(middle)
    return {
        "kind": plan["kind"], "id": plan["id"], "label": label, "score": plan["score"],
        "a_papers": plan["a_papers"], "b_papers": plan["b_papers"], "path": path,
        "evidence": [{"side": s["side"], "paper": s["paper"], "concept": labels[s["concept"]],
                      "sentence": evidence.get((s["paper"], s["concept"]), "")}
                     for s in plan["links"]],
    }
