"""Turn a researcher's words ("GNNs", "uncertainty", "chain of thought") into a topic.

A topic is resolved in three steps, the first that finds something wins:

1. ``"concept"`` — the text names a concept: label, alias, acronym or hidden
   label, ignoring case, plural and hyphenation (:func:`resolve_concept`);
2. ``"family"`` — the concepts whose label or alias *contains the words*, whole
   words only, each word compared by its :func:`~kg.core.text.norm_key` (plural,
   British spelling): "uncertainty" takes *uncertainty quantification*,
   *predictive uncertainty* (an alias) and *successor-guided uncertainty
   reduction*, not "uncertainties-free" tokens glued to other words;
3. ``"text"`` — the papers whose title or abstract contains the words (same word
   rule), fetched by the engine (:meth:`queries.engine.Engine.papers_with_text`,
   a plain case-insensitive substring the shared code then checks word by word,
   so every engine finds the same papers).

A concept or family topic stands with every concept under the concepts it took
(``members``). When nothing is found the error lists the closest concept
names, ranked by similarity and by how many papers mention them (rapidfuzz).
Unknown paper ids get the same "did you mean" hint. Every engine resolves
through here, over its :class:`~queries.concept_table.ConceptTable`.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple

from kg.core.errors import Messages, NotFoundError
from kg.core.model import Concept
from kg.core.text import acronym_key, british_variant, norm_key, plural
from queries.concept_table import ConceptTable

if TYPE_CHECKING:
    from queries.engine import Engine

__all__ = ["HOW", "Resolution", "TextMatch", "did_you_mean", "family", "find_phrase",
           "no_paper", "ranked_suggestions", "resolve", "resolve_concept", "suggestions",
           "text_needle", "words"]

#: the three ways a text becomes a topic, in the order they are tried
HOW = ("concept", "family", "text")

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9(\[\"“])")


def suggestions(text: str, choices: list[str], limit: int = 3) -> list[str]:
    """The ``choices`` closest to ``text`` (for "did you mean" hints on ids).

    Examples
    --------
    >>> suggestions("difusion model", ["diffusion model", "graph neural network"])
    ['diffusion model']
    """
    from rapidfuzz import fuzz, process  # ~0.1 s to import: only for a hint

    hits = process.extract(text, choices, scorer=fuzz.WRatio, limit=limit, score_cutoff=60)
    return [h[0] for h in hits]


def ranked_suggestions(text: str, papers: Mapping[str, int], limit: int = 3) -> list[str]:
    """The names closest to ``text``, similar *and* well attested first.

    ``papers`` maps each name to the number of papers behind it. Similarity is
    rapidfuzz's plain ratio of the normalised forms (not a partial match, so a
    longer name that merely contains the text does not win); it is weighted by
    ``1 + ln(1 + papers) / 10``, so among equally close names the one more
    papers mention comes first. Names no paper mentions are not offered.

    Examples
    --------
    >>> ranked_suggestions("reasoning", {"32B reasoning model": 1, "reasoning model": 12,
    ...                                  "reasoner": 3})
    ['reasoning model', 'reasoner', '32B reasoning model']
    """
    from rapidfuzz import fuzz, process  # ~0.1 s to import: only for a hint

    names = [n for n in sorted(papers) if papers[n] > 0]
    keys = [norm_key(n) for n in names]
    hits = process.extract(norm_key(text), keys, scorer=fuzz.ratio, limit=None,
                           score_cutoff=50)
    scored = sorted(((-round(score * (1 + math.log1p(papers[names[i]]) / 10), 6),
                      names[i]) for _, score, i in hits))
    return list(dict.fromkeys(name for _, name in scored))[:limit]


def did_you_mean(text: str, choices: list[str] | Mapping[str, int]) -> str:
    """``"; did you mean 'a', 'b'?"`` for the closest ``choices``, or ``""``.

    ``choices`` with paper counts are ranked by :func:`ranked_suggestions`.

    Examples
    --------
    >>> did_you_mean("MinHsh", ["MinHash", "SimHash"])
    "; did you mean 'MinHash', 'SimHash'?"
    """
    near = (ranked_suggestions(text, choices) if isinstance(choices, Mapping)
            else suggestions(text, choices))
    return f"; did you mean {', '.join(repr(n) for n in near)}?" if near else ""


def no_paper(paper_id: str, paper_ids: Callable[[], list[str]]) -> NotFoundError:
    """The error for an unknown paper id, with the closest of ``paper_ids()``."""
    return NotFoundError(Messages.NO_PAPER.format(
        id=paper_id, hint=did_you_mean(paper_id, sorted(paper_ids()))))


def _lookup(table: ConceptTable, text: str) -> Concept | None:
    for key in (text.strip(), acronym_key(text), norm_key(text)):
        if key in table.index:
            return table.concepts[table.index[key]]
    return table.concepts.get(text.strip())


def _not_found(table: ConceptTable, text: str,
               papers: Mapping[str, int] | None = None) -> NotFoundError:
    if papers is None:
        hint = did_you_mean(text, sorted({c.label for c in table.concepts.values()}))
    else:
        named: dict[str, int] = {}
        for c in table.concepts.values():
            named[c.label] = max(named.get(c.label, 0), papers.get(c.id, 0))
        hint = did_you_mean(text, named)
    return NotFoundError(Messages.NO_CONCEPT.format(text=text, hint=hint))


def resolve_concept(table: ConceptTable, text: str) -> Concept:
    """The concept that ``text`` names (step 1 of the resolution only).

    Raises
    ------
    NotFoundError
        With up to three suggestions.

    Examples
    --------
    >>> table = ConceptTable({"gnn": Concept("gnn", "graph neural network", aliases=["GNN"])})
    >>> resolve_concept(table, "GNNs").id, resolve_concept(table, "Graph Neural Networks").id
    ('gnn', 'gnn')
    """
    found = _lookup(table, text)
    if found is None:
        raise _not_found(table, text)
    return found


# -- words -----------------------------------------------------------------------------------

def words(text: str) -> tuple[str, ...]:
    """The normalised words of ``text`` (:func:`~kg.core.text.norm_key`, split).

    Examples
    --------
    >>> words("Uncertainty-aware GNNs")
    ('uncertainty', 'aware', 'gnn')
    """
    return tuple(norm_key(text).split())


def _contains(haystack: tuple[str, ...], needle: tuple[str, ...]) -> int:
    """How many times ``needle`` stands in ``haystack`` as consecutive words."""
    n = len(needle)
    return sum(1 for i in range(len(haystack) - n + 1) if haystack[i:i + n] == needle)


def family(table: ConceptTable, text: str) -> list[str]:
    """The concepts whose label or an alias contains the words of ``text`` (ids, sorted).

    Examples
    --------
    >>> table = ConceptTable({
    ...     "uq": Concept("uq", "uncertainty quantification", aliases=["predictive uncertainty"]),
    ...     "ua": Concept("ua", "uncertainty-aware node representation learning"),
    ...     "cal": Concept("cal", "calibration")})
    >>> family(table, "Uncertainties")
    ['ua', 'uq']
    """
    wanted = words(text)
    if not wanted:
        return []
    return sorted(cid for cid, names in table.name_words().items()
                  if any(_contains(name, wanted) for name in names))


class TextMatch(NamedTuple):
    """Where a paper's title or abstract says the words of a text topic."""

    #: how many times (title and abstract)
    times: int
    #: whether the title says them
    in_title: bool
    #: the first sentence that says them (the title before the abstract)
    sentence: str


def _sentences(text: str) -> list[str]:
    return [s for s in _SENTENCE_END.split(text.strip()) if s]


def find_phrase(wanted: tuple[str, ...], title: str, abstract: str) -> TextMatch | None:
    """Where ``wanted`` (normalised words) stands in a paper, or ``None``.

    Examples
    --------
    >>> find_phrase(words("uncertainty"), "On GNNs", "GNNs work. Uncertainties hurt them.")
    TextMatch(times=1, in_title=False, sentence='Uncertainties hurt them.')
    """
    count, in_title, first = 0, False, ""
    for field_name, text in (("title", title or ""), ("abstract", abstract or "")):
        for sentence in _sentences(text) if field_name == "abstract" else [text]:
            n = _contains(words(sentence), wanted)
            if n:
                count += n
                in_title = in_title or field_name == "title"
                first = first or sentence
    return TextMatch(count, in_title, first) if count else None


def _common_prefix(forms: Collection[str]) -> str:
    out = min(forms)
    for f in forms:
        while not f.startswith(out):
            out = out[:-1]
    return out


def text_needle(text: str) -> str:
    """The lower-case substring every paper saying ``text`` contains (what engines fetch by).

    The longest word of the text, cut to what its singular, plural and British forms
    share; papers containing it are then checked word by word (:func:`find_phrase`).

    Examples
    --------
    >>> text_needle("uncertainty"), text_needle("graph modeling")
    ('uncertaint', 'model')
    """
    wanted = words(text)
    if not wanted:
        return ""
    word = max(wanted, key=lambda w: (len(w), w))
    forms = {word, plural(word), british_variant(word), plural(british_variant(word))}
    return _common_prefix({unicodedata.normalize("NFKC", f).lower() for f in forms})


# -- the resolution ----------------------------------------------------------------------------

@dataclass(frozen=True)
class Resolution:
    """What a topic text was resolved to, and how (one of :data:`HOW`)."""

    text: str
    how: str
    #: the concepts the text named (one for ``"concept"``, the family for ``"family"``)
    taken: tuple[str, ...]
    #: ``taken`` and every concept under them
    members: frozenset[str]
    #: for ``"text"``: the papers that say the words
    matches: Mapping[str, TextMatch] = field(default_factory=dict)

    def label(self, table: ConceptTable) -> str:
        """The concept's label, or the text itself for a family or a text match."""
        return table.label(self.taken[0]) if self.how == "concept" else self.text.strip()

    def describe(self, table: ConceptTable) -> str:
        """One line saying how the text was resolved (the CLI prints it on stderr).

        Examples
        --------
        >>> table = ConceptTable({"uq": Concept("uq", "uncertainty quantification")})
        >>> r = Resolution("uncertainty", "family", ("uq",), frozenset({"uq"}))
        >>> r.describe(table).split(": ")[-1]
        'uncertainty quantification'
        """
        labels = [table.label(c) for c in self.taken]
        under = len(self.members) - len(set(self.taken) & self.members)
        more = f" (+{under} narrower)" if under > 0 else ""
        if self.how == "concept":
            return f"'{self.text}': the concept '{labels[0]}'{more}"
        if self.how == "family":
            n = len(labels)
            shown = ", ".join(labels[:12]) + (f", … ({n - 12} more)" if n > 12 else "")
            return (f"'{self.text}': no concept by that name; took the {n} concept"
                    f"{'s' if n != 1 else ''} whose name{'s' if n != 1 else ''} contain"
                    f"{'' if n != 1 else 's'} it: {shown}{more}")
        n = len(self.matches)
        return (f"'{self.text}': no concept name contains it; took the {n} paper"
                f"{'s' if n != 1 else ''} whose title or abstract says it")

    def to_json(self, table: ConceptTable) -> dict:
        """``resolved`` (how) and ``taken`` (labels of the concepts the text named)."""
        return {"resolved": self.how, "taken": [table.label(c) for c in self.taken],
                "note": self.describe(table)}


def resolve(engine: Engine, text: str, *, table: ConceptTable | None = None) -> Resolution:
    """Resolve ``text``: a concept, else a family of concepts, else a text match.

    Raises
    ------
    NotFoundError
        When none of the three finds anything, with up to three suggestions
        ranked by similarity and paper count.

    Examples
    --------
    >>> from kg.core.model import KnowledgeGraph, Mention, Paper
    >>> from queries.python import PythonEngine
    >>> kg = KnowledgeGraph(
    ...     papers={"p": Paper("p", "On GNNs", "GNNs work. Their uncertainty is high.")},
    ...     concepts={"gnn": Concept("gnn", "graph neural network", aliases=["GNN"])},
    ...     mentions=[Mention("p", "gnn", "abstract", 0, 4, "GNNs", "GNNs work.", "acronym")])
    >>> engine = PythonEngine(kg)
    >>> [resolve(engine, t).how for t in ("GNNs", "neural networks", "uncertainty")]
    ['concept', 'family', 'text']
    """
    table = table or engine.concept_table()
    found = _lookup(table, text)
    if found is not None:
        return Resolution(text, "concept", (found.id,), frozenset(table.narrower(found.id)))
    counts = engine.paper_counts()
    taken = [c for c in family(table, text)
             if any(counts.get(d, 0) for d in table.narrower(c))]
    if taken:
        members = frozenset().union(*(table.narrower(c) for c in taken))
        return Resolution(text, "family", tuple(taken), members)
    wanted, needle = words(text), text_needle(text)
    matches = {}
    if needle:
        for pid, (title, abstract) in sorted(engine.papers_with_text(needle).items()):
            hit = find_phrase(wanted, title, abstract)
            if hit:
                matches[pid] = hit
    if matches:
        return Resolution(text, "text", (), frozenset(), matches)
    raise _not_found(table, text, counts)
