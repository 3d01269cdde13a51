"""Papers that bridge two topics, and the concepts that connect them, with reasons.

A *topic* is user text resolved to a concept plus all its narrower concepts.
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

A *connector* is a concept outside both topics that papers about A only and
papers about B only both *reach*: they mention it, or a concept directly
under it (one level of ``broader``). Only concepts some paper mentions
directly can connect (so organising concepts like "machine learning" never
link everything). Its score is ``spec(c) * 2 * nA * nB / (nA + nB)`` with
``nA``/``nB`` the numbers of A-only and B-only papers reaching it.
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

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from kg.core.errors import KGError, Messages
from queries.concept_table import ConceptTable
from queries.engine import Engine, Profile
from queries.engines import engine_for
from queries.paths import shortest_path
from queries.ranking import rounded
from queries.topics import resolve_concept

__all__ = ["SameTopicError", "Topic", "bridges", "harmonic", "rank_bridges",
           "rank_connectors", "reach", "resolve_topic", "separate", "side_strength", "spec",
           "weight"]

# virtual end points of the path search: every concept of a topic at once
_A, _B = "\x00topic-a", "\x00topic-b"


class SameTopicError(KGError):
    """Both topic texts name the same concept."""


@dataclass(frozen=True)
class Topic:
    """A resolved topic: the named concept and every concept under it."""

    text: str
    id: str
    label: str
    members: frozenset[str]
    #: concepts taken out because they belong to the other, narrower topic
    without: frozenset[str] = frozenset()

    def to_json(self, labels: Mapping[str, str], papers: int) -> dict:
        ids = sorted(c for c in self.members if c in labels)
        return {"text": self.text, "id": self.id, "label": self.label,
                "concepts": sorted(labels[c] for c in ids), "concept_ids": ids,
                "papers": papers}


def resolve_topic(table: ConceptTable, text: str) -> Topic:
    """Resolve ``text`` to a topic (raises ``NotFoundError`` with suggestions)."""
    c = resolve_concept(table, text)
    return Topic(text, c.id, c.label, frozenset(table.narrower(c.id)))


def separate(ta: Topic, tb: Topic) -> tuple[Topic, Topic, list[str]]:
    """Take a narrower topic's concepts out of the broader one; notes say so.

    Examples
    --------
    >>> a = Topic("cl", "cl", "contrastive learning", frozenset({"cl", "gcl"}))
    >>> b = Topic("gcl", "gcl", "graph contrastive learning", frozenset({"gcl"}))
    >>> sorted(separate(a, b)[0].members)
    ['cl']
    """
    if tb.id in ta.members and ta.id in tb.members:
        raise SameTopicError(Messages.SAME_TOPIC.format(a=ta.text, b=tb.text, label=ta.label))
    if tb.id in ta.members:
        note = (f"'{tb.label}' is narrower than '{ta.label}': its concepts count for B only")
        return (Topic(ta.text, ta.id, ta.label, ta.members - tb.members,
                      ta.members & tb.members), tb, [note])
    if ta.id in tb.members:
        note = (f"'{ta.label}' is narrower than '{tb.label}': its concepts count for A only")
        return (ta, Topic(tb.text, tb.id, tb.label, tb.members - ta.members,
                          ta.members & tb.members), [note])
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

    ``idf`` holds the concepts mentioned directly somewhere; only those can connect.
    Papers on both sides are direct bridges, not ends of a connector: a
    connector always links *different* papers.

    Examples
    --------
    >>> pcs = {"p": {"dp"}, "q": {"dm"}}
    >>> rank_connectors({"p"}, {"q"}, pcs, {"dp": ["gen"], "dm": ["gen"]}, {"dp", "dm"},
    ...                 {"gen": 1.0, "dp": 2.0, "dm": 2.0})
    [('gen', 2.0, ['p'], ['q'])]
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
        score = rounded(spec(idf[c]) * harmonic(len(on_a[c]), len(on_b[c])))
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

def bridges(source: Any, a: str, b: str, *, limit: int = 10, min_direct: int = 3) -> dict:
    """Papers that connect topic ``a`` with topic ``b``, and why (any engine).

    Parameters
    ----------
    source : Engine, KnowledgeGraph, pyoxigraph.Store, BoltGraph or OUT folder
        What to answer from (see :func:`queries.engines.engine_for`).
    a, b : str
        Topics as text ("graph neural networks", "LLMs").
    limit : int
        Bridges and connectors to return at most.
    min_direct : int
        Connectors (indirect bridges) are computed when fewer direct bridges
        than this exist.

    Returns
    -------
    dict
        ``{"a", "b", "bridges": [{"id", "title", "score", "a_concepts",
        "b_concepts", "evidence"}], "connectors": [{"kind", "id", "label", "score",
        "a_papers", "b_papers", "path", "evidence"}], "notes": [...]}``, best first.

    Raises
    ------
    NotFoundError
        When a topic names no concept (with "did you mean" suggestions).
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
    >>> [r["id"] for r in bridges(kg, "gnn", "llm")["bridges"]]
    ['p1']
    """
    engine = engine_for(source)
    table = engine.concept_table()
    ta, tb, notes = separate(resolve_topic(table, a), resolve_topic(table, b))
    labels = {c: x.label for c, x in table.concepts.items()}
    pa, pb = engine.profile(ta.members), engine.profile(tb.members)
    idf = dict(engine.idf({c for prof in (pa, pb) for cs in prof.values() for c in cs}))
    ranked = rank_bridges(pa, pb, idf)
    shown = ranked[:limit]
    plans: list[dict] = []
    if len(ranked) < min_direct:
        plans = _connector_plans(engine, table, ta, tb, pa, pb, idf, limit)
    if not ranked and not plans and pa and pb:
        plans = _path_plan(engine, ta, tb)
    pairs = {(p, c) for p, _ in shown for c in (*pa[p], *pb[p])}
    pairs |= {(s["paper"], s["concept"]) for plan in plans for s in plan["links"]}
    evidence = {k: s[0] for k, s in engine.sentences(pairs).items() if s} if pairs else {}
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
    return {"a": ta.to_json(labels, len(pa)), "b": tb.to_json(labels, len(pb)),
            "bridges": rows, "connectors": connectors, "notes": notes}


def _connector_plans(engine: Engine, table: ConceptTable, ta: Topic, tb: Topic, pa: Profile,
                     pb: Profile,
                     idf: dict[str, float], limit: int) -> list[dict]:
    only_a, only_b = set(pa) - set(pb), set(pb) - set(pa)
    if not only_a or not only_b:
        return []
    paper_concepts = engine.paper_concepts(only_a | only_b)
    broader = {c: table.concepts[c].broader
               for cs in paper_concepts.values() for c in cs if c in table.concepts}
    reached = {r for cs in paper_concepts.values() for r in reach(cs, broader)}
    exclude = set(ta.members | tb.members | ta.without | tb.without)
    idf.update(engine.idf(reached - exclude - idf.keys()))
    plans = []
    found = rank_connectors(only_a, only_b, paper_concepts, broader, exclude, idf)
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


def _path_plan(engine: Engine, ta: Topic, tb: Topic) -> list[dict]:
    """The shortest concept path from any concept of A to any of B, as one plan."""
    ends = {_A: ta.members, _B: tb.members}

    def papers_of(ids: list[str]) -> dict[str, set[str]]:
        real = [i for i in ids if i not in ends]
        wanted = real + sorted({m for i in ids if i in ends for m in ends[i]})
        found = engine.papers_of(wanted)
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
