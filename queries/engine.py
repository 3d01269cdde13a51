"""The engine interface: what a store must answer so that every question works on it.

An engine only *fetches*: concepts, papers and links by id, counts and sums it
can take in its store. Everything else — resolving the user's text
(:mod:`queries.topics`), narrower expansion, rounding, ties and ordering
(:mod:`queries.ranking`), assembling the rows — is done once, for every engine,
by :mod:`queries.questions` and :mod:`queries.bridging`. So the engines agree by
construction, and adding one is one module and one line in
:data:`queries.engines.ENGINES`.

Every method takes a batch of ids and answers with one query or a few; ids the
store does not know are left out of the answer.
"""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path
from typing import Any, NamedTuple, Protocol, runtime_checkable

from kg.core.model import RelationEdge
from queries.concept_table import ConceptTable

__all__ = ["Engine", "Link", "PaperLink", "Profile"]

#: paper id -> concept id -> (mentions, mentioned in the title)
Profile = dict[str, dict[str, tuple[int, bool]]]


class Link(NamedTuple):
    """One paper's mentions of one concept (the paper–concept link)."""

    paper: str
    concept: str
    #: how many times the paper mentions the concept
    mentions: int
    #: where the first of them stands in the paper's mentions in text order (title
    #: first, then by offset); comparable between the links of one paper
    first: int
    #: the sentence of that first mention
    evidence: str


class PaperLink(NamedTuple):
    """One concept of one paper, with every distinct sentence that mentions it."""

    concept: str
    mentions: int
    #: as :attr:`Link.first`
    first: int
    #: distinct sentences, in text order
    sentences: list[str]


@runtime_checkable
class Engine(Protocol):
    """A source of answers: the Python model, an RDF store, a Bolt server, ….

    Examples
    --------
    >>> from kg.core.model import KnowledgeGraph
    >>> from queries.python import PythonEngine
    >>> isinstance(PythonEngine(KnowledgeGraph()), Engine)
    True
    """

    #: the name ``--engine`` knows it by
    name: str

    @classmethod
    def from_out(cls, out: Path) -> Engine:
        """The engine over the built folder ``out``."""
        ...

    # -- concepts and papers --------------------------------------------------------------

    def concept_table(self) -> ConceptTable:
        """Every concept with its labels, type and ``broader`` links (read once if it can)."""
        ...

    def paper_ids(self) -> list[str]:
        """Every paper id (for "did you mean" hints)."""
        ...

    def paper_record(self, paper_id: str) -> dict[str, Any] | None:
        """``title, year, venue, url, abstract`` of a paper, or ``None`` if unknown."""
        ...

    def titles(self, paper_ids: Collection[str]) -> dict[str, str]:
        """The title of each paper."""
        ...

    def totals(self) -> dict[str, int]:
        """``papers``, ``concepts`` and ``mentions`` of the whole graph."""
        ...

    def paper_counts(self) -> dict[str, int]:
        """For each concept, the number of papers that mention it directly."""
        ...

    def paper_meta(self) -> dict[str, tuple[int | None, str | None]]:
        """``(year, venue)`` of every paper (for the time and venue filters)."""
        ...

    def paper_list(self) -> list[tuple[str, str, int | None, str | None, int]]:
        """Every paper as ``(id, title, year, venue, concepts)``, by id: ``concepts`` counts
        the concepts it mentions directly (one query, for listing a whole graph)."""
        ...

    def papers_with_text(self, needle: str) -> dict[str, tuple[str, str]]:
        """``(title, abstract)`` of the papers whose lower-cased title or abstract
        contains ``needle`` (lower case; a plain substring: :mod:`queries.topics` checks
        the words)."""
        ...

    # -- links ---------------------------------------------------------------------------

    def concept_links(
        self, concept_ids: Collection[str]
    ) -> tuple[list[Link], dict[str, dict[str, Any]]]:
        """The links of those concepts, and ``title, year, venue`` of their papers."""
        ...

    def paper_links(self, paper_id: str) -> list[PaperLink]:
        """The concepts one paper mentions, each with its sentences."""
        ...

    def papers_of(self, concept_ids: Collection[str]) -> dict[str, set[str]]:
        """For each concept, the papers that mention it directly."""
        ...

    def paper_concepts(self, paper_ids: Collection[str]) -> dict[str, set[str]]:
        """For each paper, the concepts it mentions directly."""
        ...

    def sentences(self, pairs: Collection[tuple[str, str]]) -> dict[tuple[str, str], list[str]]:
        """For each ``(paper, concept)``, the distinct sentences of its mentions, text order."""
        ...

    def profile(self, concept_ids: Collection[str]) -> Profile:
        """Each paper's mentions of those concepts: count, and whether one is in the title."""
        ...

    def idf(self, concept_ids: Collection[str]) -> dict[str, float]:
        """The idf of those concepts that some paper mentions directly."""
        ...

    def salience(self, concept_ids: Collection[str] = (),
                 paper_ids: Collection[str] = ()) -> dict[tuple[str, str], tuple[float, bool]]:
        """For each link of those concepts and of those papers, ``(paper, concept)`` →
        its salience and whether the paper is *about* the concept (:mod:`kg.core.salience`)."""
        ...

    # -- sums an engine may take where its data lives ------------------------------------

    def related_scores(self, paper_id: str, limit: int) -> list[tuple[str, float]]:
        """Papers sharing concepts with ``paper_id`` and their raw score: the sum over shared
        concepts of idf × the weight of each paper's link (1 *about*, else
        :data:`~kg.core.salience.MENTION_WEIGHT`).

        At least every paper that can be among the ``limit`` best after rounding
        (:func:`queries.ranking.score_floor` tells which); more do no harm.
        """
        ...

    def cooccurrence_counts(self, anchor_ids: Collection[str]) -> dict[str, int]:
        """For each concept, how many papers mentioning an anchor concept mention it."""
        ...

    def cooccurrence_papers(
        self, anchor_ids: Collection[str], concept_ids: Collection[str]
    ) -> dict[str, set[str]]:
        """For each of ``concept_ids``, the papers mentioning it and an anchor concept."""
        ...

    # -- relations between concepts ------------------------------------------------------

    def relation_edges(self, concept_ids: Collection[str]) -> list[RelationEdge]:
        """Every relation edge with one of those concepts at either end (any order), each
        with its statement count and every paper's first sentence stating it."""
        ...

    def paper_relations(self, paper_id: str) -> list[RelationEdge]:
        """The relation edges the paper states (any order), each with the paper's first
        sentence stating it as its only evidence (``count`` is the whole graph's)."""
        ...
