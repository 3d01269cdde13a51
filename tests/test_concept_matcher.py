"""The concept matcher finds what it found with spaCy's ``PhraseMatcher``, in the same order.

``ConceptMatcher`` matched with two ``PhraseMatcher`` objects (``LOWER`` for phrases,
``ORTH`` for acronyms) until 2026-12-02; :class:`_Reference` is that matcher, and every test
here compares the spans (and the raw matches, whose order decides which of equal spans
``filter_spans`` keeps) with it.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import spacy
from spacy.matcher import PhraseMatcher
from spacy.tokens import Doc, Span
from spacy.util import filter_spans

from extractors.components import SPANS_KEY, phrasematcher_order, surface_variants
from kg.core.text import british_variant

SAMPLE = Path(__file__).parent / "data" / "neurips2018-sample.jsonl"


class _Reference:
    """The matcher as it was: the same forms into spaCy's ``PhraseMatcher``."""

    def __init__(self, nlp: spacy.language.Language) -> None:
        self.nlp = nlp
        self.phrases = PhraseMatcher(nlp.vocab, attr="LOWER")
        self.acronyms = PhraseMatcher(nlp.vocab, attr="ORTH")
        self.phrase_seen: set[str] = set()
        self.acronym_seen: set[str] = set()

    def add_phrases(self, concept_id: str, forms: list[str]) -> None:
        forms = list(forms)
        forms += [b for b in map(british_variant, forms) if b not in forms]
        new = []
        for form in forms:
            for v in surface_variants(form):
                if v.lower() not in self.phrase_seen:
                    self.phrase_seen.add(v.lower())
                    new.append(v)
        if new:
            self.phrases.add(concept_id, list(self.nlp.tokenizer.pipe(new)))

    def add_acronyms(self, concept_id: str, acronyms: list[str]) -> None:
        new = []
        for a in acronyms:
            for v in (a, a + "s"):
                if v not in self.acronym_seen:
                    self.acronym_seen.add(v)
                    new.append(v)
        if new:
            self.acronyms.add(concept_id, list(self.nlp.tokenizer.pipe(new)))

    def raw(self, doc: Doc) -> list[tuple[str, int, int]]:
        strings = self.nlp.vocab.strings
        return [(strings[m], s, e) for m, s, e in [*self.phrases(doc), *self.acronyms(doc)]]

    def spans(self, doc: Doc) -> list[tuple[int, int, str, str]]:
        spans = [Span(doc, s, e, label=m, kb_id="phrase") for m, s, e in self.phrases(doc)]
        spans += [Span(doc, s, e, label=m, kb_id="acronym") for m, s, e in self.acronyms(doc)]
        return [(s.start, s.end, s.label_, s.kb_id_) for s in filter_spans(spans)]


def _both(calls: list[tuple[str, str, list[str]]]):
    """A pipeline with the new matcher and a reference, both given ``calls`` in order."""
    nlp = spacy.blank("en")
    matcher = nlp.add_pipe("kg_concept_matcher")
    ref = _Reference(spacy.blank("en"))
    for kind, cid, forms in calls:
        if kind == "phrase":
            matcher.add_phrases(cid, forms)
            ref.add_phrases(cid, forms)
        else:
            matcher.add_acronyms(cid, forms)
            ref.add_acronyms(cid, forms)
    return nlp, matcher, ref


def _check(nlp, matcher, ref, texts: list[str]) -> int:
    """Assert equal spans and raw matches on every text; the number of spans."""
    n = 0
    for text in texts:
        doc = nlp(text)
        got = [(s.start, s.end, s.label_, s.kb_id_) for s in doc.spans[SPANS_KEY]]
        want_doc = ref.nlp(text)
        assert got == ref.spans(want_doc), text
        words = [t.lower_ for t in doc], [t.orth_ for t in doc]
        raw = matcher.phrases.find(words[0]) + matcher.acronyms.find(words[1])
        assert raw == ref.raw(want_doc), text
        n += len(got)
    return n


def _found(nlp, text: str, *fields: str) -> list[tuple]:
    doc = nlp(text)  # kept alive while its spans are read
    return [tuple(getattr(s, f) for f in fields) for s in doc.spans[SPANS_KEY]]


def _texts() -> list[str]:
    with SAMPLE.open() as f:
        return [json.loads(line)["abstract"] for line in f][:40]


def test_same_spans_as_phrasematcher_on_abstracts():
    """Forms cut from the abstracts at token and at character bounds (so some are tokenised
    otherwise than in their text), in other cases, hyphenated, as acronyms; concepts sharing
    forms and forms overlapping and nesting."""
    texts = _texts()
    blank = spacy.blank("en")
    docs = [blank(t) for t in texts]
    rng = random.Random(17)
    calls = []
    for _ in range(700):
        doc = rng.choice(docs)
        n = rng.randint(1, 4)
        s = rng.randrange(0, max(1, len(doc) - n))
        form = doc[s:s + n].text
        how = rng.randrange(6)
        if how == 1:
            form = form.upper()
        elif how == 2:
            form = form.replace(" ", "-")
        elif how == 3:  # cut at characters: may start or end inside a token
            c = rng.randrange(0, max(1, len(doc.text) - 30))
            form = doc.text[c:c + rng.randint(2, 25)].strip()
        cid = f"c{rng.randrange(300)}"
        if how == 4 or (how == 5 and n == 1):  # acronyms: case-sensitive, with plurals
            calls.append(("acronym", cid, [form.split()[0] if form.split() else form]))
        else:
            calls.append(("phrase", cid, [form, *([form + "s"] if how == 5 else [])]))
    nlp, matcher, ref = _both(calls)
    assert _check(nlp, matcher, ref, texts) > 400  # cut from these texts: many are found


def test_lower_for_phrases_orth_for_acronyms():
    nlp, matcher, ref = _both([("phrase", "gnn", ["graph neural network"]),
                               ("acronym", "gnn", ["GNN"]),
                               ("acronym", "gan", ["GAN"]),
                               ("phrase", "colour", ["color model"])])
    texts = ["Graph Neural Networks and GRAPH-NEURAL NETWORK, graph-neural-networks.",
             "A GNN, two GNNs, GNNS, gnns, a Gnn; GANs and gans.",
             "The colour models and a color-model."]
    _check(nlp, matcher, ref, texts)
    found = [_found(nlp, t, "text", "label_", "kb_id_") for t in texts]
    assert found == [
        [("Graph Neural Networks", "gnn", "phrase"), ("GRAPH-NEURAL NETWORK", "gnn", "phrase"),
         ("graph-neural-networks", "gnn", "phrase")],
        [("GNN", "gnn", "acronym"), ("GNNs", "gnn", "acronym"), ("GANs", "gan", "acronym")],
        [("colour models", "colour", "phrase"), ("color-model", "colour", "phrase")]]


def test_overlaps_the_longest_wins_and_equal_spans_keep_the_phrase():
    nlp, matcher, ref = _both([("phrase", "anomaly", ["anomaly detection"]),
                               ("phrase", "graph-anomaly", ["graph anomaly"]),
                               ("phrase", "gad", ["graph anomaly detection"]),
                               ("phrase", "detection-method", ["detection method"]),
                               ("acronym", "gad-acronym", ["GAD"]),
                               ("phrase", "gad-phrase", ["GAD"])])
    texts = ["Graph anomaly detection method and anomaly detection method; GAD."]
    _check(nlp, matcher, ref, texts)
    assert _found(nlp, texts[0], "text", "label_", "kb_id_") == [
        # "detection method" overlaps longer or earlier matches both times
        ("Graph anomaly detection", "gad", "phrase"), ("anomaly detection", "anomaly", "phrase"),
        ("GAD", "gad-phrase", "phrase")]


def test_first_concept_of_a_form_wins():
    """A form (or a variant of it) added again for another concept stays the first's."""
    nlp, matcher, ref = _both([("phrase", "first", ["graph model"]),
                               ("phrase", "second", ["graph models", "Graph-Model", "tree"]),
                               ("acronym", "first", ["GM"]),
                               ("acronym", "second", ["GMs", "GM", "TM"])])
    texts = ["Graph models, a graph-model, trees, GMs, GM and TMs."]
    _check(nlp, matcher, ref, texts)
    assert _found(nlp, texts[0], "text", "label_") == [
        ("Graph models", "first"), ("graph-model", "first"), ("trees", "second"),
        ("GMs", "first"), ("GM", "first"), ("TMs", "second")]


def test_a_token_sequence_of_several_concepts_in_the_phrasematchers_order():
    """Different strings with the same tokens ("x-ray", "x - ray") are different forms:
    spaCy's PhraseMatcher gives their concepts in its hash table's order, not the order
    they were added in, and that decides the label of the one span kept."""
    nlp = spacy.blank("en")
    order = phrasematcher_order(nlp.vocab.strings)
    assert order(["b", "a"]) == ["a", "b"] and order(["a", "d"]) == ["d", "a"]
    for first, second in (("b", "a"), ("a", "d"), ("case", "zz")):
        calls = [("phrase", first, ["x-ray"]), ("phrase", second, ["x - ray"]),
                 ("acronym", first, ["X-RAY"]), ("acronym", second, ["X - RAY"])]
        nlp, matcher, ref = _both(calls)
        texts = ["An x-ray and an X - RAY, X-RAYs."]
        assert _check(nlp, matcher, ref, texts) == 3
        label = order([first, second])[0]
        assert _found(nlp, texts[0], "label_") == [(label,)] * 3
        assert matcher.phrases.keys[("x", "-", "ray")] == order([first, second])


def test_phrasematcher_order_is_the_phrasematchers():
    """Many keys on one pattern (the table is resized twice), symbol names among them."""
    nlp = spacy.blank("en")
    rng = random.Random(3)
    keys = [f"concept-{rng.randrange(10**6)}" for _ in range(40)] + ["case", "ORTH", "mark"]
    rng.shuffle(keys)
    order = phrasematcher_order(nlp.vocab.strings)
    for n in (2, 3, 4, 5, 12, len(keys)):
        matcher = PhraseMatcher(nlp.vocab)
        for key in keys[:n]:
            matcher.add(key, [nlp.make_doc("word")])
        want = [nlp.vocab.strings[m] for m, _, _ in matcher(nlp.make_doc("word"))]
        assert order(keys[:n]) == want
        assert sorted(want) == sorted(keys[:n])


def test_terms_stay_out_of_the_vocabulary():
    """The forms' words are not added to the shared vocabulary (which every process
    holding the pipeline kept for good), in a memory zone or not."""
    nlp = spacy.blank("en")
    matcher = nlp.add_pipe("kg_concept_matcher")
    strings = len(nlp.vocab.strings)
    matcher.add_phrases("zq", ["zqxv wrmpf", "frobnicated tensors"])
    matcher.add_acronyms("zq", ["ZQXV"])
    assert len(nlp.vocab.strings) == strings
    assert "frobnicated" not in nlp.vocab.strings and "ZQXV" not in nlp.vocab
    with nlp.memory_zone():
        matcher.add_acronyms("fq", ["FQB"])
        doc = nlp("Frobnicated-tensors and ZQXVs, FQBs.")
        assert [(s.text, s.label_) for s in doc.spans[SPANS_KEY]] == [
            ("Frobnicated-tensors", "zq"), ("ZQXVs", "zq"), ("FQBs", "fq")]
    assert ("frobnicated", "tensors") in matcher.phrases.keys
