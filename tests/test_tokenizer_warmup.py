"""The tokenizer warmed with a corpus's frequent chunks (extractors.tokenizer_warmup).

Extraction's memory zones keep nothing the tokenizer makes; chunks tokenized before them
stay, and a zone reuses them. The warm-up may change how fast a text is cut, never how.
"""

from __future__ import annotations

import itertools
import json

import pytest
import spacy

from extractors import pipeline
from extractors.tokenizer_warmup import frequent_chunks, warm_tokenizer
from kg.core.readers import read_records
from tests.conftest import NEURIPS2018_SAMPLE

TEXTS = ["Graph neural networks (GNNs) reach 91.2% accuracy on ImageNet-1k.",
         "We fine-tune BERT-base; the GNN's over-smoothing, e.g. at depth 64, persists.",
         "Self-supervised pre-training (SSL) helps: see https://example.org/x.y, 3x faster."]


def _cuts(nlp, texts):
    return [[(t.text, t.idx, t.whitespace_, t.norm_, t.shape_, t.is_punct, t.like_num)
             for t in doc] for doc in nlp.tokenizer.pipe(texts)]


def test_a_warm_tokenizer_cuts_texts_as_a_cold_one_in_memory_zones():
    cold, warm = spacy.blank("en"), spacy.blank("en")
    chunks = frequent_chunks(TEXTS * 2)  # every chunk, seen twice
    assert "(GNNs)" in chunks and "ImageNet-1k." in chunks
    warm_tokenizer(warm, chunks)
    with cold.memory_zone():
        expected = _cuts(cold, TEXTS)
    for _ in range(2):  # the second time from what the first zone left
        with warm.memory_zone():
            assert _cuts(warm, TEXTS) == expected


def test_warmed_words_outlast_a_memory_zone_and_others_do_not():
    nlp = spacy.blank("en")
    size = nlp.tokenizer.max_cache_size
    warm_tokenizer(nlp, ["transformers,", "Vorantel"])
    assert nlp.tokenizer.max_cache_size == size + 2
    with nlp.memory_zone():
        nlp("Vorantel and Quellatron transformers, again.")
    strings = nlp.vocab.strings
    assert "Vorantel" in strings and "transformers" in strings
    assert "Quellatron" not in strings


def test_warming_inside_a_memory_zone_is_refused():
    nlp = spacy.blank("en")
    with nlp.memory_zone(), pytest.raises(RuntimeError, match="memory zone"):
        warm_tokenizer(nlp, ["word"])


def test_frequent_chunks_count_a_sample_in_runs():
    texts = [f"common t{i} t{i}" for i in range(10)]
    assert frequent_chunks(texts, sample=100) == ("common", *(f"t{i}" for i in range(10)))
    # 2 of 10 texts: one run, the first two
    assert frequent_chunks(texts, sample=2) == ("common", "t0", "t1")
    assert frequent_chunks(texts, sample=2, limit=1) == ("common",)
    assert frequent_chunks(texts, sample=0) == frequent_chunks([]) == ()


def test_the_sample_holds_titles_and_abstracts_alike():
    # a corpus's texts as extraction lists them: each paper's title, then its abstract
    texts = [text for i in range(1000)
             for text in (f"Title {i} title words", f"abstract {i} abstract words")]
    # (evenly spaced single texts, every tenth, were titles alone)
    assert {"title", "words", "abstract"} <= set(frequent_chunks(texts, sample=200))


def test_extraction_finds_the_same_with_and_without_the_warm_up(monkeypatch):
    with open(NEURIPS2018_SAMPLE, encoding="utf-8") as f:
        records = [json.loads(line) for line in itertools.islice(f, 12)]
    papers = read_records(records).papers

    def found():
        kg = pipeline.extract_corpus(papers, workers=1)
        return ([(m.paper, m.field, m.start, m.end, m.concept, m.sentence) for m in kg.mentions],
                sorted((c.id, c.label, c.type) for c in kg.concepts.values()))

    warmed = found()
    monkeypatch.setattr(pipeline, "frequent_chunks", lambda texts: ())
    assert found() == warmed
    assert len(warmed[0]) > 100
