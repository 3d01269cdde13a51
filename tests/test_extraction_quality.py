"""Extraction beyond the lexicon: patterns, generic spans, normalisation, markup, evaluation."""

import json
import subprocess
import sys

import pytest

from extractors.evaluation import detokenize, score_keywords, score_scierc
from extractors.generic import is_generic
from extractors.markup import mask_markup
from extractors.pipeline import chunks, extract_corpus, span_model_dir
from kg.core.model import Paper
from kg.core.text import near_duplicate, norm_key
from tests.conftest import ROOT, shared_file


def _by_text(kg):
    return {m.text: kg.concepts[m.concept] for m in kg.mentions}


def test_coined_names_become_method_concepts():
    kg = extract_corpus([
        Paper("a", "", "We propose DeepFooNet, a network for graphs. DeepFooNet is fast."),
        Paper("b", "", "We introduce WidgetBench, a benchmark of widgets."),
    ], span_model=False)
    found = _by_text(kg)
    assert found["DeepFooNet"].type == "method" and found["DeepFooNet"].origin == "pattern"
    assert found["WidgetBench"].type == "dataset"  # "WidgetBench, a benchmark of widgets"
    assert {m.paper for m in kg.mentions if m.text == "DeepFooNet"} == {"a"}


def test_coined_name_head_gives_the_type():
    kg = extract_corpus([Paper("a", "", "We release FooQA dataset for questions.")],
                        span_model=False)
    assert _by_text(kg)["FooQA dataset"].type == "dataset"


def test_defined_acronyms_without_a_vote_are_typed_by_head_else_method():
    # no span model, so no vote: a long form's head types it, and one that says nothing
    # is a method (as most defined acronyms in SciERC train are), not a catch-all concept
    kg = extract_corpus([
        Paper("a", "", "We use sparse widget routing (SWR) for graphs. SWR is fast. "
                       "We vary the levels of detail (LOD)."),
        Paper("b", "", "Our widget error rate (WER) drops."),
    ], span_model=False)
    types = {c.label: c.type for c in kg.concepts.values() if c.origin == "acronym"}
    assert types == {"sparse widget routing": "method", "levels of detail": "concept",
                     "widget error rate": "metric"}


@pytest.mark.parametrize("label, votes", [
    ("transferability", {"metric": 2}), ("anonymity", {"metric": 1}),
    ("cross-domain zero-shot transferability", {"method": 1}),
    ("decentralized identity", {"task": 2, "method": 1}), ("data quality", {"metric": 1}),
])
def test_a_property_is_a_concept_whatever_the_model_voted(label, votes):
    from collections import Counter

    from extractors.consolidate import _vote

    # nouns in -ity and -ness name properties, concepts in the rubric (bench/judged/)
    assert _vote(Counter(votes), label) == "concept"
    # a head that says what the term is still wins, and the rule leaves other heads alone
    assert _vote(Counter(votes), label + " score") == "metric"
    assert _vote(Counter({"metric": 1}), "click-through rate") == "metric"


@pytest.mark.parametrize("text", ["our method", "this problem", "performance", "the model",
                                  "it", "a novel approach", "existing methods", "data"])
def test_generic_spans_are_generic(text):
    assert is_generic(text)


@pytest.mark.parametrize("text", ["graph contrastive learning", "user model", "CIFAR-10",
                                  "noise", "weight decay", "DeepWalk"])
def test_terms_are_not_generic(text):
    assert not is_generic(text)


def test_british_and_american_spellings_are_one_concept():
    assert norm_key("Regularisation methods") == norm_key("regularization method")
    kg = extract_corpus([Paper("a", "", "We study batch normalisation."),
                         Paper("b", "", "We study batch normalization.")], span_model=False)
    assert {m.concept for m in kg.mentions} == {"batch-normalization"}


def test_near_duplicates_are_conservative():
    assert near_duplicate("hierarchial clustering", "hierarchical clustering")
    assert not near_duplicate("supervised learning", "unsupervised learning")
    assert not near_duplicate("convolutional network", "deconvolutional network")
    assert not near_duplicate("cifar 10", "cifar 100")


NOISY = [
    r"We train \emph{graph neural networks} with $\ell_2$ weight decay \cite{x}.",
    "<p>We train <em>graph neural networks</em> &amp; diffusion models.</p>",
    "We train **graph neural networks** and [diffusion models](http://x.org).",
]


@pytest.mark.parametrize("text", NOISY)
def test_markup_is_masked_and_offsets_stay_exact(text):
    masked = mask_markup(text)
    assert len(masked) == len(text)
    assert "\\" not in masked and "<" not in masked and "**" not in masked
    kg = extract_corpus([Paper("a", "", text)], span_model=False)
    assert "graph-neural-network" in {m.concept for m in kg.mentions}
    for m in kg.mentions:
        assert text[m.start:m.end] == m.text and m.text in m.sentence


def test_long_texts_are_chunked_without_moving_offsets():
    text = "We use graph neural networks. " * 50
    pieces = list(chunks(text, size=100))
    assert len(pieces) > 1 and all(len(c) <= 100 for _, c in pieces)
    assert all(text[o:o + len(c)] == c for o, c in pieces)
    assert "".join(c for _, c in pieces) == text


def test_scierc_scoring_matches_its_definition():
    gold = [{"doc_key": "d", "sentences": [["We", "use", "CRF", "models", "for", "NER", "."]],
             "ner": [[[2, 3, "Method"], [5, 5, "Task"], [0, 0, "Generic"]]]}]
    text, _ = detokenize(gold[0])
    assert text == "We use CRF models for NER."
    preds = {"d": {"mentions": [
        {"field": "abstract", "start": 7, "end": 17, "type": "method"},   # typed hit
        {"field": "abstract", "start": 22, "end": 25, "type": "method"},  # untyped hit only
        {"field": "abstract", "start": 0, "end": 2, "type": "generic"},   # ignored
        {"field": "abstract", "start": 3, "end": 6, "type": "concept"},   # false positive
        {"field": "title", "start": 0, "end": 1, "type": "method"},       # other field: ignored
    ]}}
    s = score_scierc(gold, preds)
    assert (s.untyped.tp, s.untyped.fp, s.untyped.fn) == (2, 1, 0)
    # strict: the span on the right bounds with the wrong type is an FP and an FN
    assert (s.typed.tp, s.typed.fp, s.typed.fn) == (1, 2, 1)
    assert s.typed.precision == pytest.approx(1 / 3)


def test_keyword_recall_counts_only_keywords_in_the_text():
    papers = [Paper("p", "Deep nets", "We use graph neural networks.",
                    keywords=["Graph Neural Network", "transformers", "deep nets"])]
    preds = {"p": {"mentions": [{"text": "graph neural networks"}], "concepts": []}}
    s = score_keywords(papers, preds)
    assert (s.present, s.recalled) == (2, 1)


def test_keyword_recall_counts_only_what_the_graph_keeps():
    papers = [Paper("p", "Deep nets", "We use graph neural networks and transformers.",
                    keywords=["Graph Neural Network", "transformers"])]
    preds = {"p": {"mentions": [{"text": "graph neural networks", "accepted": False},
                                {"text": "transformers"}],
                   "concepts": [{"label": "graph neural network", "accepted": False}]}}
    s = score_keywords(papers, preds)
    assert (s.present, s.recalled, s.recalled_all) == (2, 1, 2)


def test_kg_eval_agrees_with_the_official_scorer(tmp_path):
    gold = shared_file("scierc/dev.jsonl")
    scorer = gold.parents[2] / "eval" / "score_extract.py"
    if not scorer.exists():
        pytest.skip("official scorer not found")
    inp, pred = tmp_path / "in.jsonl", tmp_path / "pred.jsonl"
    subprocess.run([sys.executable, scorer, "make-input", gold, inp], check=True)
    with open(pred, "w") as f:
        subprocess.run([sys.executable, "-m", "kg", "extract", inp], check=True, stdout=f)
    official = subprocess.run([sys.executable, scorer, "score", gold, pred, "0"], check=True,
                              capture_output=True, text=True).stdout
    ours = subprocess.run([sys.executable, "-m", "kg", "eval", "scierc", gold, "--pred", pred,
                           "--json"], check=True, capture_output=True, text=True, cwd=ROOT).stdout
    off, mine = json.loads(official), json.loads(ours)
    assert off["typed"] == mine["typed"] and off["untyped"] == mine["untyped"]


def test_kg_eval_keywords_agrees_with_the_official_scorer(tmp_path):
    corpus = shared_file("iclr2018.jsonl")
    scorer = corpus.parent.parent / "eval" / "score_extract.py"
    if not scorer.exists():
        pytest.skip("official scorer not found")
    inp, pred = tmp_path / "in.jsonl", tmp_path / "pred.jsonl"
    subprocess.run([sys.executable, scorer, "kwinput", corpus, inp], check=True)
    with open(pred, "w") as f:
        subprocess.run([sys.executable, "-m", "kg", "extract", inp], check=True, stdout=f)
    official = subprocess.run([sys.executable, scorer, "kwscore", corpus, pred, "0"],
                              capture_output=True, text=True).stdout
    ours = subprocess.run([sys.executable, "-m", "kg", "eval", "keywords", corpus, "--pred", pred,
                           "--json"], check=True, capture_output=True, text=True, cwd=ROOT).stdout
    off, mine = json.loads(official), json.loads(ours)
    assert (off["present_keywords"], off["recalled"], off["recall_incl_rejected"]) == \
        (mine["present_keywords"], mine["recalled"], mine["recall_incl_rejected"])


@pytest.mark.skipif(span_model_dir() is None, reason="span model weights not installed")
def test_span_model_finds_terms_the_lexicon_lacks():
    kg = extract_corpus([Paper("a", "", "We present a hierarchical phrase-based translation "
                                        "model for low-resource speech transcription.")])
    assert any(c.origin == "model" for c in kg.concepts.values())
    assert not any(is_generic(c.label) for c in kg.concepts.values() if c.origin == "model")


# -- concepts accepted into the graph (extractors.acceptance) ------------------------------

# What a domain expert lists for a few example abstracts (paper number: concept labels).
EXPECTED = {
    2: {"axial attention", "time series foundation model", "Bayes optimality",
        "projected gradient descent"},
    3: {"graph neural network", "calibration", "under-confidence", "weight decay"},
    4: {"vision-language model", "jailbreak", "JRS-Rem"},
    7: {"multi-view transformer", "3D reconstruction", "cross-attention",
        "correspondence matching"},
    11: {"MinHash", "CMinHash", "circulant permutation", "mean squared error"},
    13: {"neural data", "factor analysis", "burst coding", "neural coding"},
    17: {"List-GRPO", "group relative policy optimization", "fine-grained visual classification",
         "multimodal large language model", "reinforcement learning"},
}
# Phrases the span model marks in these abstracts that are no concepts.
JUNK = ["beats chance", "Convergence speed varies", "benign, refusal", "CMinHash promise",
        "align multiple point clouds", "constructing confidence regions",
        "absolute notion of simplicity", "class name", "coefficient", "anchored response",
        "attention", "alignment", "model size grows", "lack universality",
        "projection of the total", "problematic model", "fine-grained benchmarks",
        "understanding generalization", "mitigating semantic corruption", "RL"]


def _labels(kg, n):
    from tests.conftest import paper_id

    return {kg.concepts[c].label for c in kg.paper_concepts.get(paper_id(n), {})}


@pytest.mark.parametrize("n", sorted(EXPECTED))
def test_graph_concepts_are_what_an_expert_lists(example_kg, n):
    labels = _labels(example_kg, n)
    assert EXPECTED[n] <= labels
    assert not {norm_key(j) for j in JUNK} & {norm_key(label) for label in labels}


def test_no_junk_concepts_in_the_example_graph(example_kg):
    from extractors.acceptance import FINITE_VERBS, LEADING_VERBS

    keys = {norm_key(c.label) for c in example_kg.concepts.values()}
    assert not {norm_key(j) for j in JUNK} & keys
    for c in example_kg.concepts.values():
        if c.origin in ("lexicon", "acronym"):  # curated, or spelled out by the authors
            continue
        words = c.label.lower().split()
        assert not set(",;:") & set(c.label), c.label
        assert len(words) <= 5, c.label
        assert words[0] not in LEADING_VERBS and not FINITE_VERBS & set(words[1:]), c.label


def test_kg_extract_keeps_rejected_mentions_apart():
    from extractors.acceptance import Rejected

    r = Rejected()
    kg = extract_corpus([Paper("a", "", "Any learner that beats chance on some environments "
                                        "uses axial attention.")], rejected=r)
    assert "beats chance" not in {m.text for m in kg.mentions}
    if span_model_dir() is not None:
        assert "beats chance" in {m.text for m in r.mentions}
        assert r.decisions[r.mentions[0].concept].reason == "leading verb"
