"""Plain-text tooltips and panel texts for papers, concepts and their links.

Everything here is plain text: the page puts it into the DOM with
``textContent``, so no title or abstract can become markup.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

from kg.core.model import KnowledgeGraph, Salience
from visualizations.style import short, snippet

__all__ = ["concept_tooltip", "mention_tooltip", "paper_meta", "paper_tooltip", "plural"]


def plural(n: int, word: str) -> str:
    """``"1 paper"``, ``"2 papers"``.

    Examples
    --------
    >>> plural(1, "paper"), plural(3, "paper")
    ('1 paper', '3 papers')
    """
    return f"{n} {word}{'' if n == 1 else 's'}"


def paper_meta(kg: KnowledgeGraph, pid: str) -> str:
    """``"ID · venue year"`` of a paper."""
    p = kg.papers[pid]
    meta = " ".join(str(x) for x in (p.venue, p.year) if x)
    return f"{p.id}  ·  {meta}" if meta else p.id


def paper_tooltip(kg: KnowledgeGraph, pid: str, *,
                  concepts: Collection[str] | None = None) -> str:
    """Title, id, venue/year, an abstract snippet and the paper's concepts (``concepts``,
    when the caller has them: else those of ``kg.paper_concepts``).

    Examples
    --------
    >>> from kg.core.model import KnowledgeGraph, Paper
    >>> kg = KnowledgeGraph(papers={"p": Paper("p", "A title", "An abstract.", year=2018)})
    >>> print(paper_tooltip(kg, "p"))
    A title
    p  ·  2018
    <BLANKLINE>
    An abstract.
    """
    p = kg.papers[pid]
    lines = [p.title, paper_meta(kg, pid), "", snippet(p.abstract)]
    if concepts is None:
        concepts = kg.paper_concepts.get(pid, ())
    labels = sorted(kg.concepts[c].label for c in concepts)
    if labels:
        lines += ["", "concepts: " + short(", ".join(labels), 300)]
    return "\n".join(lines)


def concept_tooltip(kg: KnowledgeGraph, cid: str, *, extra: str = "") -> str:
    """Label, type, number of papers, aliases, broader concepts and definition."""
    c = kg.concepts[cid]
    n = len(kg.concept_papers.get(cid, ()))
    lines = [c.label, f"{c.type} · {plural(n, 'paper')}"]
    if extra:
        lines.append(extra)
    aliases = sorted(set(c.aliases) - {c.label})
    if aliases:
        lines.append("also: " + ", ".join(aliases[:8]))
    broader = [kg.concepts[b].label for b in c.broader if b in kg.concepts]
    if broader:
        lines.append("under: " + ", ".join(broader))
    if c.definition:
        lines += ["", snippet(c.definition, 240)]
    return "\n".join(lines)


def mention_tooltip(kg: KnowledgeGraph, pid: str, cid: str, count: int, sentence: str, *,
                    salience: Mapping[tuple[str, str], Salience] | None = None) -> str:
    """Which paper is about (or merely mentions) which concept, how often, its salience,
    and the sentence that says so (``salience``: the pairs' saliences, by default the
    model's :attr:`~kg.core.model.KnowledgeGraph.salience`)."""
    s = (kg.salience if salience is None else salience).get((pid, cid))
    verb = "is about" if s is not None and s.about else "mentions"
    score = f", salience {s.score:.2f}" if s is not None else ""
    return (f"{short(kg.papers[pid].title, 80)}\n{verb} {kg.concepts[cid].label}"
            f" ({count}×{score})\n\n“{snippet(sentence, 280)}”")
