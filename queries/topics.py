"""Turn user text ("GNNs", "graph neural networks", "diffusion") into concepts.

Resolution is by label, alias or acronym, ignoring case and plural; when
nothing matches, the error lists the closest names (rapidfuzz). Unknown paper
ids get the same "did you mean" hint. Every engine resolves through here, over
its :class:`~queries.concept_table.ConceptTable`.
"""

from __future__ import annotations

from collections.abc import Callable

from rapidfuzz import fuzz, process

from kg.core.errors import Messages, NotFoundError
from kg.core.model import Concept
from kg.core.text import acronym_key, norm_key
from queries.concept_table import ConceptTable

__all__ = ["did_you_mean", "no_paper", "resolve_concept", "suggestions"]


def suggestions(text: str, choices: list[str], limit: int = 3) -> list[str]:
    """The ``choices`` closest to ``text`` (for "did you mean" hints).

    Examples
    --------
    >>> suggestions("difusion model", ["diffusion model", "graph neural network"])
    ['diffusion model']
    """
    hits = process.extract(text, choices, scorer=fuzz.WRatio, limit=limit, score_cutoff=60)
    return [h[0] for h in hits]


def did_you_mean(text: str, choices: list[str]) -> str:
    """``"; did you mean 'a', 'b'?"`` for the closest ``choices``, or ``""``.

    Examples
    --------
    >>> did_you_mean("MinHsh", ["MinHash", "SimHash"])
    "; did you mean 'MinHash', 'SimHash'?"
    """
    near = suggestions(text, choices)
    return f"; did you mean {', '.join(repr(n) for n in near)}?" if near else ""


def no_paper(paper_id: str, paper_ids: Callable[[], list[str]]) -> NotFoundError:
    """The error for an unknown paper id, with the closest of ``paper_ids()``."""
    return NotFoundError(Messages.NO_PAPER.format(
        id=paper_id, hint=did_you_mean(paper_id, sorted(paper_ids()))))


def resolve_concept(table: ConceptTable, text: str) -> Concept:
    """The concept that ``text`` names.

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
    for key in (text.strip(), acronym_key(text), norm_key(text)):
        if key in table.index:
            return table.concepts[table.index[key]]
    if text.strip() in table.concepts:
        return table.concepts[text.strip()]
    hint = did_you_mean(text, sorted({c.label for c in table.concepts.values()}))
    raise NotFoundError(Messages.NO_CONCEPT.format(text=text, hint=hint))
