"""The curated, SKOS-shaped lexicon of ML concepts (``extractors/data/lexicon.ttl``).

A lexicon is a SKOS concept scheme in Turtle: ``skos:prefLabel``,
``skos:altLabel``, ``skos:broader``, and two properties of the project's own
vocabulary, ``kgv:acronym`` and ``kgv:conceptType``. Users extend it by passing
more Turtle files (``kg build --lexicon FILE``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path

import pyoxigraph as ox

from kg.core.errors import KGError, Messages
from kg.core.model import CONCEPT_TYPES
from kg.core.vocab import CONCEPT_NS, KGV, RDF, SKOS

__all__ = ["DEFAULT_LEXICON", "Lexicon", "LexiconEntry", "load_lexicon"]

DEFAULT_LEXICON = "lexicon.ttl"


@dataclass
class LexiconEntry:
    """One lexicon concept."""

    id: str
    label: str
    type: str
    aliases: list[str] = field(default_factory=list)
    acronyms: list[str] = field(default_factory=list)
    broader: list[str] = field(default_factory=list)
    hidden: list[str] = field(default_factory=list)


@dataclass
class Lexicon:
    """All entries of one or more lexicon files, by concept id."""

    entries: dict[str, LexiconEntry] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.entries)


def _local_id(iri: str, path: Path) -> str:
    if not iri.startswith(CONCEPT_NS):
        raise KGError(Messages.BAD_LEXICON.format(
            path=path, detail=f"concept IRI {iri} is not under {CONCEPT_NS}"))
    return iri[len(CONCEPT_NS):]


def _parse(path: Path, data: bytes) -> dict[str, LexiconEntry]:
    try:
        quads = list(ox.parse(data, format=ox.RdfFormat.TURTLE))
    except SyntaxError as e:
        raise KGError(Messages.BAD_LEXICON.format(path=path, detail=str(e))) from None
    props: dict[str, dict[str, list[str]]] = {}
    for q in quads:
        if not isinstance(q.subject, ox.NamedNode):
            continue
        p = props.setdefault(q.subject.value, {})
        p.setdefault(q.predicate.value, []).append(q.object.value)
    entries = {}
    for iri, p in props.items():
        types = p.get(RDF + "type", [])
        if SKOS + "ConceptScheme" in types:
            continue
        if SKOS + "prefLabel" not in p and SKOS + "Concept" not in types \
                and not iri.startswith(CONCEPT_NS):
            continue  # not a concept: some other resource the file describes
        # a concept kg would drop or match everywhere is an error, not a silent surprise
        if not iri.startswith(CONCEPT_NS):
            raise KGError(Messages.BAD_LEXICON.format(path=path, detail=Messages.LEXICON_IRI.format(
                iri=iri, ns=CONCEPT_NS)))
        cid = _local_id(iri, path)
        if SKOS + "prefLabel" not in p:
            raise KGError(Messages.BAD_LEXICON.format(
                path=path, detail=Messages.LEXICON_NO_LABEL.format(id=cid)))
        for prop in ("prefLabel", "altLabel", "hiddenLabel"):
            _check_labels(p.get(SKOS + prop, []), f"skos:{prop}", cid, path)
        _check_labels(p.get(KGV + "acronym", []), "kgv:acronym", cid, path)
        ctype = (p.get(KGV + "conceptType") or ["concept"])[0]
        if ctype not in CONCEPT_TYPES:
            raise KGError(Messages.BAD_LEXICON.format(
                path=path, detail=f"{cid} has unknown type '{ctype}' (use {CONCEPT_TYPES})"))
        entries[cid] = LexiconEntry(
            id=cid,
            label=p[SKOS + "prefLabel"][0],
            type=ctype,
            aliases=sorted(p.get(SKOS + "altLabel", [])),
            acronyms=sorted(p.get(KGV + "acronym", [])),
            broader=sorted(_local_id(b, path) for b in p.get(SKOS + "broader", [])),
            hidden=sorted(p.get(SKOS + "hiddenLabel", [])),
        )
    return entries


def _check_labels(labels: list[str], prop: str, cid: str, path: Path) -> None:
    """Refuse a label with no letter or digit: it would match every word or punctuation mark."""
    for label in labels:
        if not any(ch.isalnum() for ch in label):
            raise KGError(Messages.BAD_LEXICON.format(
                path=path, detail=Messages.LEXICON_EMPTY_LABEL.format(id=cid, prop=prop,
                                                                      label=label)))


@lru_cache(maxsize=8)
def _load(paths: tuple[str, ...]) -> Lexicon:
    lex = Lexicon()
    default = resources.files("extractors") / "data" / DEFAULT_LEXICON
    sources: list[tuple[Path, bytes]] = [(Path(str(default)), default.read_bytes())]
    for p in paths:
        path = Path(p)
        try:
            sources.append((path, path.read_bytes()))
        except OSError as e:
            raise KGError(Messages.BAD_LEXICON.format(path=path, detail=e.strerror)) from None
    for path, data in sources:
        lex.entries.update(_parse(path, data))
    for e in lex.entries.values():
        missing = [b for b in e.broader if b not in lex.entries]
        if missing:
            raise KGError(Messages.BAD_LEXICON.format(
                path=sources[-1][0], detail=f"{e.id} has unknown broader concept {missing[0]}"))
    return lex


def load_lexicon(extra: Iterable[str | Path] = ()) -> Lexicon:
    """Load the shipped lexicon plus any ``extra`` Turtle files (later files win).

    Examples
    --------
    >>> lex = load_lexicon()
    >>> lex.entries["graph-neural-network"].acronyms
    ['GNN']
    """
    return _load(tuple(str(p) for p in extra))
