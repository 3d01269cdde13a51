"""Turn user text ("GNNs", "graph neural networks", "diffusion") into concepts.

Resolution is by label, alias or acronym, ignoring case and plural; when
nothing matches, the error lists the closest concepts (rapidfuzz).
"""

from __future__ import annotations

from rapidfuzz import fuzz, process

from kg.core.errors import Messages, NotFoundError
from kg.core.model import Concept, KnowledgeGraph
from kg.core.text import acronym_key, norm_key


def concept_index(concepts: dict[str, Concept]) -> dict[str, str]:
    """Map every normalised label, alias, acronym and hidden label to a concept id.

    Labels win over aliases, and aliases over hidden labels.
    """
    index: dict[str, str] = {}
    for cid in sorted(concepts):
        for hidden in concepts[cid].hidden_labels:
            index[norm_key(hidden)] = cid
    for cid in sorted(concepts):
        for alias in concepts[cid].aliases:
            index.setdefault(norm_key(alias), cid)
            index.setdefault(acronym_key(alias), cid)
    for cid in sorted(concepts):  # labels override aliases
        index[norm_key(concepts[cid].label)] = cid
    return index


def suggestions(text: str, choices: list[str], limit: int = 3) -> list[str]:
    """The ``choices`` closest to ``text`` (for "did you mean" hints)."""
    hits = process.extract(text, choices, scorer=fuzz.WRatio, limit=limit, score_cutoff=60)
    return [h[0] for h in hits]


def resolve_concept(kg: KnowledgeGraph, text: str, *,
                    index: dict[str, str] | None = None) -> Concept:
    """The concept that ``text`` names.

    ``index`` is ``concept_index(kg.concepts)`` when the caller keeps it between calls.

    Raises
    ------
    NotFoundError
        With up to three suggestions.

    Examples
    --------
    >>> from kg.core.model import Concept, KnowledgeGraph
    >>> kg = KnowledgeGraph(concepts={"gnn": Concept("gnn", "graph neural network",
    ...                                              aliases=["GNN"])})
    >>> resolve_concept(kg, "GNNs").id, resolve_concept(kg, "Graph Neural Networks").id
    ('gnn', 'gnn')
    """
    if index is None:
        index = concept_index(kg.concepts)
    for key in (text.strip(), acronym_key(text), norm_key(text)):
        if key in index:
            return kg.concepts[index[key]]
    if text.strip() in kg.concepts:
        return kg.concepts[text.strip()]
    near = suggestions(text, sorted({c.label for c in kg.concepts.values()}))
    hint = f"; did you mean {', '.join(repr(n) for n in near)}?" if near else ""
    raise NotFoundError(Messages.NO_CONCEPT.format(text=text, hint=hint))
