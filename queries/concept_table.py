"""The concepts of a source with the index that resolves names to them.

Every engine reads its concepts once into a :class:`ConceptTable`; topic
resolution (:mod:`queries.topics`), narrower expansion and labels come from it,
so no engine needs its own.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from kg.core.model import Concept, KnowledgeGraph, concept_index
from kg.core.text import norm_key

__all__ = ["ConceptTable", "concept_index"]


@dataclass
class ConceptTable:
    """Every concept of a source, as a model without papers, with its name index.

    Shared between calls: treat as read-only. ``concepts`` and ``index`` may be mappings
    that read their entries on demand (``model.sqlite``: :mod:`queries.python_index`);
    a table whose source can walk the hierarchy itself overrides :meth:`narrower`.

    Examples
    --------
    >>> table = ConceptTable({"gnn": Concept("gnn", "graph neural network"),
    ...                       "gcn": Concept("gcn", "graph convolutional network",
    ...                                      broader=["gnn"])})
    >>> sorted(table.narrower("gnn"))
    ['gcn', 'gnn']
    """

    concepts: Mapping[str, Concept]
    #: every name's key -> concept id (:func:`~kg.core.model.concept_index`): made here
    #: unless the source keeps it ready (``model.sqlite`` does)
    index: Mapping[str, str] = field(default_factory=dict)
    _hierarchy: KnowledgeGraph | None = field(init=False, default=None, repr=False,
                                              compare=False)
    _name_words: dict[str, list[tuple[str, ...]]] | None = field(init=False, default=None,
                                                                repr=False, compare=False)

    def __post_init__(self) -> None:
        if not self.index:
            self.index = concept_index(dict(self.concepts))

    def name_words(self) -> dict[str, list[tuple[str, ...]]]:
        """For each concept, the normalised words of its label and of each alias (once)."""
        if self._name_words is None:
            self._name_words = {
                cid: list(dict.fromkeys(tuple(norm_key(n).split())
                                        for n in (c.label, *c.aliases)))
                for cid, c in self.concepts.items()}
        return self._name_words

    def narrower(self, concept_id: str) -> set[str]:
        """``concept_id`` and every concept below it through ``broader`` links."""
        if self._hierarchy is None:
            self._hierarchy = KnowledgeGraph(concepts=dict(self.concepts))
        return self._hierarchy.descendants(concept_id)

    def label(self, concept_id: str) -> str:
        """The preferred label of ``concept_id``."""
        return self.concepts[concept_id].label
