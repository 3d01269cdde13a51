"""Coined names: "we propose DeepFoo", "a model called FooNet", "FooBench, a benchmark …".

Authors announce the names they coin in a handful of fixed phrasings. The
``kg_coined_names`` component (registered in :mod:`extractors.components`)
finds them with a rule-based spaCy ``Matcher`` and writes
``doc.spans["kg_coined"]``, each span labelled with a concept type guessed
from its head ("FooBench benchmark" is a dataset; a bare name is a method).

A name is one to five tokens that look like a name: inner capitals or digits
("DeepWalk", "ResNet-50", "word2vec"), all capitals ("CLEVR"), or a run of
title-case words ("Neural Process Networks").
"""

from __future__ import annotations

import re

from spacy.language import Language
from spacy.matcher import Matcher
from spacy.tokens import Doc, Span
from spacy.util import filter_spans

from extractors.concepts import guess_type
from extractors.generic import is_generic

__all__ = [
    "CoinedNameMatcher",
    "KIND_HEADS",
    "NAME_LIKE",
    "SPANS_KEY",
    "coined_type",
    "match_patterns",
]

SPANS_KEY = "kg_coined"

_NAMEY = r"^(?=.*[A-Za-z])(?:[A-Za-z]*[a-z][A-Z0-9][A-Za-z0-9\-+]*|[A-Z][A-Z0-9\-+]+s?|" \
         r"[A-Z][a-z]+[A-Z][A-Za-z0-9\-]*|[A-Za-z]+\d[A-Za-z0-9\-]*)$"
NAME_LIKE = re.compile(_NAMEY)
_TRIGGERS = ["propose", "proposes", "introduce", "introduces", "present", "presents",
             "develop", "develops", "call", "called", "name", "named", "dub", "dubbed",
             "term", "termed", "coin", "coined", "design", "designs", "devise", "release",
             "releases", "build", "construct", "collect", "create"]
_LIGHT = ["novel", "new", "simple", "general", "unified", "principled", "efficient", "scalable",
          "practical", "fast", "generic", "flexible", "lightweight", "large", "large-scale"]

#: Head words that say what kind of thing a name is: "FooBench dataset", "KLPatch, a greedy
#: patching algorithm".
KIND_HEADS = {"dataset", "datasets", "benchmark", "benchmarks", "corpus", "model", "models",
               "network", "networks", "algorithm", "framework", "method", "architecture",
               "library", "toolkit", "metric", "score", "task", "challenge", "suite"}
_NAME_TOKEN = {"TEXT": {"REGEX": _NAMEY}}
_TITLE_TOKEN = {"IS_TITLE": True, "IS_SENT_START": False}
_NAME_PART = {"TEXT": {"REGEX": _NAMEY + r"|^[A-Z][a-z]+$|^-$"}, "IS_SENT_START": False}


def match_patterns() -> dict[str, list[list[dict]]]:
    """The ``Matcher`` patterns of coined names, by match key (``TRIGGER``, ``APPOSITION``)."""
    lead = [{"LOWER": {"IN": _TRIGGERS}},
            {"LOWER": {"IN": ["a", "an", "the"]}, "OP": "?"},
            {"LOWER": {"IN": _LIGHT}, "OP": "*"}]
    return {
        # "we propose DeepFoo", "called Neural Process Networks"
        "TRIGGER": [lead + [_NAME_TOKEN, {**_NAME_PART, "OP": "{,4}"}],
                    lead + [_TITLE_TOKEN, {**_NAME_PART, "OP": "{1,4}"}],
                    lead + [_TITLE_TOKEN, {"ORTH": {"IN": [",", "(", ":"]}}]],
        # "DeepFoo, a deep network that ..." at the start of a sentence
        "APPOSITION": [[{"IS_SENT_START": True, **_NAME_TOKEN},
                        {**_NAME_PART, "OP": "{,3}"}, {"ORTH": ","},
                        {"LOWER": {"IN": ["a", "an"]}}]],
    }


def _name_bounds(span: Span) -> tuple[int, int] | None:
    """Token bounds of the name inside a pattern match."""
    toks = list(span)
    i = 0
    while i < len(toks) and not (NAME_LIKE.match(toks[i].text) or toks[i].is_title):
        i += 1
    if i == len(toks) or (toks[i].lower_ in _TRIGGERS and i == 0):
        i += 1
    j = i
    while j < len(toks) and (NAME_LIKE.match(toks[j].text) or toks[j].is_title
                             or (toks[j].text == "-" and j + 1 < len(toks))):
        j += 1
    while j > i and toks[j - 1].text == "-":
        j -= 1
    if j <= i:
        return None
    return span.start + i, span.start + j


class CoinedNameMatcher:
    """Find coined names; see the module docstring."""

    def __init__(self, nlp: Language, name: str) -> None:
        self.name = name
        self.matcher = Matcher(nlp.vocab)
        for key, pats in match_patterns().items():
            self.matcher.add(key, pats, greedy="LONGEST")

    def __call__(self, doc: Doc) -> Doc:
        spans = []
        for _key, s, e in self.matcher(doc):
            bounds = _name_bounds(doc[s:e])
            if bounds is None:
                continue
            span = doc[bounds[0]:bounds[1]]
            if len(span) == 1 and not NAME_LIKE.match(span.text):
                # a lone title-case word is a name only when no lower-case noun follows it
                nxt = doc[span.end] if span.end < len(doc) else None
                if nxt is not None and nxt.is_alpha and nxt.is_lower:
                    continue
            if is_generic(span.text) or span.text.lower() in _TRIGGERS:
                continue
            end = span.end
            if end < len(doc) and doc[end].lower_ in KIND_HEADS:  # "FooBench dataset"
                end += 1
            span = doc[span.start:end]
            spans.append(Span(doc, span.start, span.end, label=coined_type(span.text)))
        doc.spans[SPANS_KEY] = filter_spans(spans)
        return doc


def coined_type(name: str) -> str:
    """Type of a coined name: a method unless its head word says otherwise.

    >>> coined_type("DeepFoo"), coined_type("FooBench benchmark"), coined_type("FooQA dataset")
    ('method', 'dataset', 'dataset')
    """
    t = guess_type(name)
    return "method" if t == "concept" else t
