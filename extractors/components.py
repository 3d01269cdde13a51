"""spaCy pipeline components, registered by name (spaCy's ``@Language.factory``).

``kg_concept_matcher``
    Finds known concepts: every label and alias (case-, plural- and
    hyphenation-insensitive: their tokens' ``LOWER``) and every acronym
    (case-sensitive: their tokens' ``ORTH``), finding what a spaCy ``PhraseMatcher``
    on that attribute finds, in its order. Writes ``doc.spans["kg_concepts"]``: spans
    labelled with the concept id, the longest match winning where matches overlap;
    ``span.kb_id_`` is ``"acronym"`` or ``"phrase"``. Its terms are saved with the
    pipeline (``nlp.to_disk``: ``kg_concept_matcher/terms.json``) and restored by
    ``spacy.load``.

``kg_coined_names``
    Finds names the authors coin ("we propose DeepFoo", "FooBench, a
    benchmark …"); writes ``doc.spans["kg_coined"]`` (see
    :mod:`extractors.patterns`).

Both are also registered as ``spacy_factories`` entry points (``pyproject.toml``), so a
pipeline saved with them loads in any process where ``kg-abstracts`` is installed, without
importing this module first:

>>> import spacy
>>> nlp = spacy.blank("en")
>>> nlp.add_pipe("kg_concept_matcher").add_acronyms("gnn", ["GNN"])
>>> doc = nlp("Two GNNs.")
>>> [(s.text, s.label_) for s in doc.spans[SPANS_KEY]]
[('GNNs', 'gnn')]
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from pathlib import Path

from spacy.language import Language
from spacy.strings import StringStore
from spacy.tokens import Doc, Span
from spacy.util import filter_spans

from extractors.patterns import CoinedNameMatcher
from extractors.phrases import PhraseIndex
from kg.core.text import british_variant, plural_last

__all__ = [
    "ConceptMatcher",
    "MAX_HYPHEN_WORDS",
    "SPANS_KEY",
    "make_coined_names",
    "make_concept_matcher",
    "phrasematcher_order",
    "surface_variants",
]

SPANS_KEY = "kg_concepts"
_TERMS_FILE = "terms.json"
MAX_HYPHEN_WORDS = 4  # hyphenation variants are generated for phrases up to this long


def surface_variants(form: str) -> set[str]:
    """Spellings a phrase can take: hyphen or space or none, singular or plural last word.

    >>> sorted(surface_variants("multi-view model"))  # doctest: +NORMALIZE_WHITESPACE
    ['multi view model', 'multi view models', 'multi view-model', 'multi view-models',
     'multi-view model', 'multi-view models', 'multi-view-model', 'multi-view-models',
     'multiview model', 'multiview models']
    """
    spaced = form.replace("-", " ")
    forms = {form, spaced}
    if "-" in form:
        forms.add(form.replace("-", ""))
    words = spaced.split()
    if 1 < len(words) <= MAX_HYPHEN_WORDS:
        # every way of joining neighbours with a hyphen: "graph-neural network", ...
        for mask in range(1, 2 ** (len(words) - 1)):
            joined = words[0]
            for i, w in enumerate(words[1:]):
                joined += ("-" if mask >> i & 1 else " ") + w
            forms.add(joined)
    return forms | {plural_last(f) for f in forms}


def phrasematcher_order(strings: StringStore) -> Callable[[list[str]], list[str]]:
    """The order a spaCy ``PhraseMatcher`` gives the keys of one pattern in, from the keys
    as they were added.

    It keeps them in a ``preshed`` hash table (open addressing, linear probing, 8 cells
    to start, doubled when 3/5 full, each key at its hash modulo the size) and reads its
    cells in turn: the order of their hashes' low bits, not the order of adding. Which
    concept a shared pattern is labelled with (``filter_spans`` keeps the first of equal
    spans) depends on it, so the index must give the same.

    >>> order = phrasematcher_order(StringStore())
    >>> order(["b", "a"]) == order(["a", "b"])  # no collision: the table's cells decide
    True
    """
    def order(keys: list[str]) -> list[str]:
        size, filled = 8, 0
        cells: list[tuple[int, str] | None] = [None] * size
        special: dict[int, str] = {}  # hashes 0 and 1 mark empty and deleted cells

        def put(cells: list[tuple[int, str] | None], cell: tuple[int, str]) -> None:
            i = cell[0] & (len(cells) - 1)
            while cells[i] is not None:  # the keys are distinct, none was ever removed
                i = (i + 1) & (len(cells) - 1)
            cells[i] = cell

        for key in keys:
            h = strings.as_int(key)  # the key's id as the matcher has it (symbols too)
            if h in (0, 1):
                special[h] = key
                continue
            put(cells, (h, key))
            filled += 1
            if (filled + 1) * 5 >= size * 3:
                old, size = cells, size * 2
                cells = [None] * size
                for cell in old:
                    if cell is not None:
                        put(cells, cell)
        return [c[1] for c in cells if c is not None] + [special[h] for h in (0, 1)
                                                          if h in special]
    return order


class ConceptMatcher:
    """Match concept labels, aliases and acronyms; see the module docstring.

    It finds what two spaCy ``PhraseMatcher`` objects (``LOWER`` for phrases, ``ORTH`` for
    acronyms) would, with two :class:`~extractors.phrases.PhraseIndex` objects of the
    forms' token strings instead: a ``PhraseMatcher`` holds a trie of hash tables in C per form
    and a set of its token ids, and its patterns' words stay in the shared vocabulary,
    which grew every process holding the pipeline with the corpus (each coined name and
    acronym definition adds forms). Like the ``PhraseMatcher``, a form matches where the
    text's tokens are the form's own tokens (a form tokenised otherwise in context is not
    found), every match is found, overlapping or nested, and a token sequence shared by
    several concepts gives them in the ``PhraseMatcher``'s order.

    Examples
    --------
    >>> import spacy
    >>> nlp = spacy.blank("en")
    >>> matcher = nlp.add_pipe("kg_concept_matcher")
    >>> matcher.add_phrases("gnn", ["graph neural network"])
    >>> matcher.add_acronyms("gnn", ["GNN"])
    >>> matcher.add_acronyms("gan", ["GAN"])
    >>> doc = nlp("Graph-neural-networks, GNNs and a gan.")
    >>> [(s.text, s.label_, s.kb_id_) for s in doc.spans[SPANS_KEY]]
    [('Graph-neural-networks', 'gnn', 'phrase'), ('GNNs', 'gnn', 'acronym')]
    """

    def __init__(self, nlp: Language, name: str) -> None:
        self.nlp = nlp
        self.name = name
        self._clear()

    def _clear(self) -> None:
        order = phrasematcher_order(self.nlp.vocab.strings)
        #: the phrases' forms, as their tokens' ``lower_``
        self.phrases = PhraseIndex(order=order)
        #: the acronyms and their plurals, as their tokens' ``orth_``
        self.acronyms = PhraseIndex(order=order)
        self._phrase_seen: set[str] = set()
        self._acronym_seen: set[str] = set()
        #: every ``add_*`` call in order, ``[kind, concept id, forms]``: what is saved
        self._terms: list[list] = []

    def _tokens(self, forms: list[str], lower: bool) -> list[list[str]]:
        """Each form's tokens as the pipeline's tokenizer cuts it, lower-cased or not.

        Outside a memory zone, in one: the forms' words would otherwise stay in the
        shared vocabulary (and the tokenizer's cache) for good, as the ``PhraseMatcher``'s
        patterns did; the index keeps them as Python strings.
        """
        def cut() -> list[list[str]]:
            return [[t.lower_ if lower else t.orth_ for t in doc]
                    for doc in self.nlp.tokenizer.pipe(forms)]

        if self.nlp.vocab.in_memory_zone:  # zones do not nest: the caller's holds them
            return cut()
        with self.nlp.vocab.memory_zone():
            return cut()

    def add_phrases(self, concept_id: str, forms: Iterable[str]) -> None:
        """Match every variant of ``forms`` (case-insensitive) as ``concept_id``."""
        new = []
        forms = list(forms)
        self._terms.append(["phrase", concept_id, forms])
        forms += [b for b in map(british_variant, forms) if b not in forms]
        for form in forms:
            for v in surface_variants(form):
                key = v.lower()
                if key not in self._phrase_seen:
                    self._phrase_seen.add(key)
                    new.append(v)
        if new:
            self.phrases.add(concept_id, self._tokens(new, lower=True))

    def add_acronyms(self, concept_id: str, acronyms: Iterable[str]) -> None:
        """Match ``acronyms`` and their plurals case-sensitively as ``concept_id``."""
        new = []
        acronyms = list(acronyms)
        self._terms.append(["acronym", concept_id, acronyms])
        for a in acronyms:
            for v in (a, a + "s"):
                if v not in self._acronym_seen:
                    self._acronym_seen.add(v)
                    new.append(v)
        if new:
            self.acronyms.add(concept_id, self._tokens(new, lower=False))

    def __call__(self, doc: Doc) -> Doc:
        # phrases first: of equal spans, filter_spans keeps the first (a phrase)
        spans = [Span(doc, s, e, label=m, kb_id="phrase")
                 for m, s, e in self.phrases.find([t.lower_ for t in doc])]
        spans += [Span(doc, s, e, label=m, kb_id="acronym")
                  for m, s, e in self.acronyms.find([t.orth_ for t in doc])]
        doc.spans[SPANS_KEY] = filter_spans(spans)
        return doc

    # -- serialisation: spaCy calls these from nlp.to_disk / spacy.load ----------------
    def to_bytes(self, *, exclude: Iterable[str] = ()) -> bytes:
        """The terms, as JSON (the order of adding is kept: the first concept of a form wins)."""
        return json.dumps(self._terms, ensure_ascii=False, separators=(",", ":")).encode("utf-8")

    def from_bytes(self, data: bytes, *, exclude: Iterable[str] = ()) -> ConceptMatcher:
        """Replace the terms by those of :meth:`to_bytes`."""
        self._clear()
        for kind, concept_id, forms in json.loads(data):
            add = self.add_phrases if kind == "phrase" else self.add_acronyms
            add(concept_id, forms)
        return self

    def to_disk(self, path: str | Path, *, exclude: Iterable[str] = ()) -> None:
        """Write the terms into the component's folder of a saved pipeline."""
        path = Path(path)
        path.mkdir(parents=True, exist_ok=True)
        (path / _TERMS_FILE).write_bytes(self.to_bytes())

    def from_disk(self, path: str | Path, *, exclude: Iterable[str] = ()) -> ConceptMatcher:
        """Read the terms that :meth:`to_disk` wrote."""
        return self.from_bytes((Path(path) / _TERMS_FILE).read_bytes())


@Language.factory("kg_concept_matcher")
def make_concept_matcher(nlp: Language, name: str) -> ConceptMatcher:
    """Factory for :class:`ConceptMatcher` (terms are added after creation)."""
    return ConceptMatcher(nlp, name)


@Language.factory("kg_coined_names")
def make_coined_names(nlp: Language, name: str):
    """Factory for :class:`extractors.patterns.CoinedNameMatcher` ("we propose DeepFoo")."""
    return CoinedNameMatcher(nlp, name)
