"""Papers that bridge two topics, and the concepts that connect them, with reasons.

A *topic* is user text resolved to a concept plus all its narrower concepts.
Engines (Python, SPARQL, Cypher) only fetch *profiles* — for each paper, how
often and where it mentions each concept of a set — and this module scores
them, so all engines rank identically.

Scores
------
For a paper *p* and a concept *c* it mentions ``m`` times (``t = 1`` if one
mention is in the title)::

    weight(p, c) = (1 + t) * (2 - 1/m)         # repeated mentions saturate at 2, a title doubles
    spec(c)      = 1 + idf(c) = 1 + ln(N / df(c))   # rare concepts count more
    side(p, X)   = sum over c in X of spec(c) * weight(p, c)
    score(p)     = 2 * side(p, A) * side(p, B) / (side(p, A) + side(p, B))

The harmonic mean rewards papers that are substantially about *both* topics.
A *connector* is a concept outside both topics mentioned by papers of each side;
its score is ``spec(c) * 2 * nA * nB / (nA + nB)`` with ``nA``/``nB`` the
numbers of A- and B-papers mentioning it. Scores are rounded to 6 decimals
before ranking; ties go to the smaller id.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from kg.model import KnowledgeGraph
from queries.resolve import resolve_concept

#: paper id -> concept id -> (mentions, mentioned in the title)
Profile = dict[str, dict[str, tuple[int, bool]]]


@dataclass(frozen=True)
class Topic:
    """A resolved topic: the named concept and every concept under it."""

    text: str
    id: str
    label: str
    members: frozenset[str]

    def to_json(self, labels: Mapping[str, str]) -> dict:
        return {"text": self.text, "id": self.id, "label": self.label,
                "concepts": sorted(labels[c] for c in self.members if c in labels)}


def resolve_topic(kg: KnowledgeGraph, text: str) -> Topic:
    """Resolve ``text`` to a topic (raises ``NotFoundError`` with suggestions)."""
    c = resolve_concept(kg, text)
    return Topic(text, c.id, c.label, frozenset(kg.descendants(c.id)))


def weight(mentions: int, in_title: bool) -> float:
    """How strongly one paper is about one concept."""
    return (1 + int(in_title)) * (2 - 1 / mentions)


def spec(idf: float) -> float:
    """Specificity of a concept from its idf."""
    return 1 + idf


def harmonic(a: float, b: float) -> float:
    return 2 * a * b / (a + b) if a + b else 0.0


def side_strength(concepts: Mapping[str, tuple[int, bool]], idf: Mapping[str, float]) -> float:
    """``side(p, X)`` for one paper's profile restricted to a topic."""
    return sum(spec(idf[c]) * weight(m, t) for c, (m, t) in concepts.items())


def rank_bridges(a: Profile, b: Profile, idf: Mapping[str, float]) -> list[tuple[str, float]]:
    """Papers in both profiles with their bridge score, best first."""
    rows = [(p, round(harmonic(side_strength(a[p], idf), side_strength(b[p], idf)), 6))
            for p in a.keys() & b.keys()]
    return sorted(rows, key=lambda r: (-r[1], r[0]))


def reach(concepts: set[str], broader: Mapping[str, set[str]]) -> dict[str, str]:
    """Concepts a paper reaches: its own, and one level up (``{reached: via}``).

    One level up lets "generative model" connect a paper on Private Evolution with
    one on diffusion models; going further would connect everything through
    "machine learning".
    """
    out = {c: c for c in sorted(concepts)}
    for c in sorted(concepts):
        for b in sorted(broader.get(c, ())):
            out.setdefault(b, c)
    return out


def rank_connectors(
    a_papers: set[str], b_papers: set[str], paper_concepts: Mapping[str, set[str]],
    broader: Mapping[str, set[str]], exclude: set[str], idf: Mapping[str, float],
) -> list[tuple[str, float, list[str], list[str]]]:
    """Concepts outside both topics reached by papers of each side, best first.

    ``idf`` holds the concepts mentioned directly somewhere; only those can connect.

    Papers on both sides are left out when each side has papers of its own, so a
    connector links *different* papers.
    """
    only_a, only_b = a_papers - b_papers, b_papers - a_papers
    if only_a and only_b:
        a_papers, b_papers = only_a, only_b
    on_a: dict[str, set[str]] = {}
    on_b: dict[str, set[str]] = {}
    for side, papers in ((on_a, a_papers), (on_b, b_papers)):
        for p in papers:
            for c in reach(paper_concepts.get(p, set()), broader):
                # organising concepts nobody mentions ("machine learning") link everything
                if c not in exclude and c in idf:
                    side.setdefault(c, set()).add(p)
    rows = []
    for c in on_a.keys() & on_b.keys():
        score = round(spec(idf[c]) * harmonic(len(on_a[c]), len(on_b[c])), 6)
        rows.append((c, score, sorted(on_a[c]), sorted(on_b[c])))
    return sorted(rows, key=lambda r: (-r[1], r[0]))


# -- the Python engine's fetchers ------------------------------------------------

def profile(kg: KnowledgeGraph, members: frozenset[str]) -> Profile:
    """Mentions of ``members`` per paper (Python engine)."""
    out: Profile = {}
    for m in kg.mentions:
        if m.concept in members:
            n, t = out.setdefault(m.paper, {}).get(m.concept, (0, False))
            out[m.paper][m.concept] = (n + 1, t or m.field == "title")
    return out


def _evidence(kg: KnowledgeGraph, paper: str, concepts: set[str]) -> dict[str, str]:
    found: dict[str, str] = {}
    for m in kg.mentions_by_paper.get(paper, []):
        if m.concept in concepts and m.concept not in found:
            found[m.concept] = m.sentence
    return found


def bridges(kg: KnowledgeGraph, a: str, b: str, *, limit: int = 10,
            min_direct: int = 3) -> dict:
    """Papers that connect topic ``a`` with topic ``b``, and why (Python engine).

    Parameters
    ----------
    kg : KnowledgeGraph
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
        "b_concepts", "evidence"}], "connectors": [...]}``, best first.

    Examples
    --------
    >>> from kg.model import Concept, KnowledgeGraph, Mention, Paper
    >>> m = lambda p, c: Mention(p, c, "abstract", 0, 1, "x", f"{p} uses {c}.", "lexicon")
    >>> kg = KnowledgeGraph(
    ...     papers={p: Paper(p, p.upper(), "x") for p in ("p1", "p2")},
    ...     concepts={c: Concept(c, c) for c in ("gnn", "llm")},
    ...     mentions=[m("p1", "gnn"), m("p1", "llm"), m("p2", "gnn")])
    >>> [r["id"] for r in bridges(kg, "gnn", "llm")["bridges"]]
    ['p1']
    """
    ta, tb = resolve_topic(kg, a), resolve_topic(kg, b)
    idf = {c: kg.idf(c) for c in kg.concept_papers}  # mentioned concepts only
    pa, pb = profile(kg, ta.members), profile(kg, tb.members)
    paper_concepts = {p: set(cs) for p, cs in kg.paper_concepts.items()}
    broader = {c.id: set(c.broader) for c in kg.concepts.values()}
    return assemble(
        ta, tb, pa, pb, idf, paper_concepts, broader,
        titles={p: kg.papers[p].title for p in kg.papers},
        labels={c: kg.concepts[c].label for c in kg.concepts},
        evidence=lambda p, cs: _evidence(kg, p, cs), limit=limit, min_direct=min_direct)


def assemble(
    ta: Topic, tb: Topic, pa: Profile, pb: Profile, idf: Mapping[str, float],
    paper_concepts: Mapping[str, set[str]], broader: Mapping[str, set[str]], *,
    titles: Mapping[str, str],
    labels: Mapping[str, str], evidence: Callable[[str, set[str]], dict[str, str]],
    limit: int, min_direct: int,
) -> dict:
    """Build the answer from engine-fetched profiles (shared by every engine)."""
    ranked = rank_bridges(pa, pb, idf)[:limit]
    rows = []
    for p, score in ranked:
        a_c, b_c = sorted(pa[p]), sorted(pb[p])
        ev = evidence(p, set(a_c) | set(b_c))
        rows.append({
            "id": p, "title": titles[p], "score": score,
            "a_concepts": [labels[c] for c in a_c], "b_concepts": [labels[c] for c in b_c],
            "evidence": [{"side": side, "concept": labels[c], "sentence": ev[c]}
                         for side, cs in (("a", a_c), ("b", b_c)) for c in cs if c in ev],
        })
    connectors = []
    if len(ranked) < min_direct:
        found = rank_connectors(set(pa), set(pb), paper_concepts, broader,
                                set(ta.members | tb.members), idf)[:limit]
        for c, score, a_papers, b_papers in found:
            connectors.append(_connector(c, score, a_papers, b_papers, pa, pb,
                                         paper_concepts, broader, titles, labels, evidence))
    return {"a": ta.to_json(labels), "b": tb.to_json(labels), "bridges": rows,
            "connectors": connectors}


def _connector(c: str, score: float, a_papers: list[str], b_papers: list[str], pa: Profile,
               pb: Profile, paper_concepts: Mapping[str, set[str]],
               broader: Mapping[str, set[str]], titles: Mapping[str, str],
               labels: Mapping[str, str],
               evidence: Callable[[str, set[str]], dict[str, str]]) -> dict:
    """One connector with its example path A-concept, A-paper, c, B-paper, B-concept."""
    path, ev_rows = [], []
    for side, papers, prof in (("a", a_papers, pa), ("b", b_papers, pb)):
        p = papers[0]
        topic_c = sorted(prof[p])[0]
        via = reach(paper_concepts.get(p, set()), broader)[c]
        ev = evidence(p, {via, topic_c})
        steps = [{"kind": "concept", "id": topic_c, "label": labels[topic_c]},
                 {"kind": "paper", "id": p, "title": titles[p]}]
        path.extend(steps if side == "a" else steps[::-1])
        if side == "a":
            path.append({"kind": "concept", "id": c, "label": labels[c]})
        ev_rows.append({"side": side, "paper": p, "concept": labels[via],
                        "sentence": ev.get(via, "")})
    return {"id": c, "label": labels[c], "score": score, "a_papers": a_papers,
            "b_papers": b_papers, "path": path, "evidence": ev_rows}
