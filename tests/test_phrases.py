"""The phrase index of term propagation finds what spaCy's PhraseMatcher finds."""

import json
import random
from pathlib import Path

import spacy
from spacy.matcher import PhraseMatcher

from extractors.phrases import PhraseIndex

SAMPLE = Path(__file__).parent / "data" / "neurips2018-sample.jsonl"


def _texts() -> list[str]:
    with SAMPLE.open() as f:
        return [json.loads(line)["abstract"] for line in f][:40]


def test_matches_equal_phrasematcher_on_abstracts():
    nlp = spacy.blank("en")
    texts = _texts()
    docs = list(nlp.pipe(texts))
    rng = random.Random(7)
    # forms: word n-grams cut from the abstracts (so they occur), some in another case,
    # some with a hyphen or doubled space (so they are not found), each under a key
    forms = []
    for i in range(600):
        doc = rng.choice(docs)
        n = rng.randint(1, 4)
        s = rng.randrange(0, max(1, len(doc) - n))
        form = doc[s:s + n].text
        form = {0: form, 1: form.upper(), 2: form.replace(" ", "-"), 3: form.replace(" ", "  ")
                }[rng.randrange(4)]
        forms.append((f"k{i % 250}", form))  # keys shared by several forms
    for attr in ("LOWER", "ORTH"):
        matcher = PhraseMatcher(nlp.vocab, attr=attr)
        index = PhraseIndex()
        for key, form in forms:
            pattern = nlp.make_doc(form)
            matcher.add(key, [pattern])
            words = [t.text for t in pattern]
            index.add(key, [[w.lower() for w in words] if attr == "LOWER" else words])
        n_found = 0
        for doc in docs:
            want = sorted((nlp.vocab.strings[k], s, e) for k, s, e in matcher(doc))
            words = [t.text for t in doc]
            got = index.find([w.lower() for w in words] if attr == "LOWER" else words)
            assert sorted(got) == want
            n_found += len(got)
        assert n_found > 500  # the forms were cut from these texts: most are found


def test_overlapping_and_nested_matches_in_order():
    index = PhraseIndex()
    index.add("a", [("graph", "anomaly")])
    index.add("b", [("graph", "anomaly", "detection"), ("anomaly", "detection")])
    index.add("c", [("graph", "anomaly")])  # the same words under a second key
    index.add("a", [("graph", "anomaly")])  # again: once
    words = ["graph", "anomaly", "detection", "graph"]
    assert index.find(words) == [("a", 0, 2), ("c", 0, 2), ("b", 0, 3), ("b", 1, 3)]
    assert index.find([]) == [] and index.find(["graph"]) == []
    assert len(index) == 3


def test_empty_sequences_are_ignored():
    index = PhraseIndex()
    index.add("a", [(), ("x",)])
    assert index.find(["x", "y"]) == [("a", 0, 1)]
    assert len(index) == 1
