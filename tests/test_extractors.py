import pytest

from extractors.acronyms import find_definitions
from extractors.pipeline import extract_corpus
from kg.core.model import Paper
from kg.core.text import american, british_variant, norm_key
from tests.conftest import paper_id


def _concepts(kg, n):
    return {m.concept for m in kg.mentions_by_paper.get(paper_id(n), [])}


def test_mention_offsets_index_the_field_exactly(example_kg):
    assert example_kg.mentions
    for m in example_kg.mentions:
        field = example_kg.papers[m.paper].text(m.field)
        assert field[m.start:m.end] == m.text
        assert m.text in m.sentence and m.sentence in field


@pytest.mark.parametrize("forms", [
    ("GNNs", "GNN", "graph neural network", "Graph Neural Networks", "graph-neural networks"),
    ("diffusion models", "Diffusion Model"),
])
def test_surface_forms_share_one_key_or_concept(forms):
    papers = [Paper(f"p{i}", "", f"We use {f} here.") for i, f in enumerate(forms)]
    kg = extract_corpus(papers)
    found = {p: {m.concept for m in kg.mentions if m.paper == p} for p in kg.papers}
    assert len({frozenset(v) for v in found.values()}) == 1, found
    assert all(found.values())


def test_new_acronym_becomes_one_concept_for_the_whole_corpus():
    kg = extract_corpus([
        Paper("a", "", "We propose Spectral Widget Networks (SWNs) for graphs."),
        Paper("b", "", "Unlike SWNs, our model is linear."),
    ])
    (cid,) = {m.concept for m in kg.mentions if m.text in ("SWNs", "Spectral Widget Networks")}
    assert {m.paper for m in kg.mentions if m.concept == cid} == {"a", "b"}
    c = kg.concepts[cid]
    assert c.label == "spectral widget network" and "SWN" in c.aliases
    assert c.type == "method"


def test_two_letter_acronyms_need_the_long_form_in_the_paper():
    kg = extract_corpus([
        Paper("a", "", "Private Evolution (PE) generates synthetic data. PE is private."),
        Paper("b", "", "We add a PE term to the transformer."),
    ])
    assert {m.paper for m in kg.mentions if m.concept == "private-evolution"} == {"a"}


def test_acronym_definitions():
    defs = [(d.short, d.long) for d in find_definitions(
        "We extend Time Series Foundation Models (TSFMs) and the generalized power method "
        "(GPM; Boumal 2016).")]
    assert defs == [("TSFM", "Time Series Foundation Models"), ("GPM", "generalized power method")]


def test_norm_key_folds_case_plural_and_hyphens():
    assert norm_key("Bias-Variance Tradeoffs") == norm_key("bias variance tradeoff")
    assert norm_key("processes") == "process" and norm_key("analysis") == "analysis"
    # a name ending in "s" is no plural: "Naive Bayes" was keyed (and named) "naive baye"
    assert norm_key("Naive Bayes classifiers") == "naive bayes classifier"


@pytest.mark.parametrize("word", [
    "normalization", "regularizations", "optimizer", "tokenizing", "summarized", "modeling",
    "labeled", "signaled", "channeling", "behavior", "behaviors", "neighborhood", "colors",
    "analyze", "analyzed", "paralyzing",
])
def test_british_variant_and_american_are_inverse(word):
    # the matcher adds british_variant spellings, norm_key folds them back with american:
    # the two rule tables live side by side in kg.core.text and must stay inverse
    assert british_variant(word) != word
    assert american(british_variant(word)) == word


def test_calibration_paper_concepts(example_kg):
    assert {"graph-neural-network", "calibration", "under-confidence", "weight-decay"} <= \
        _concepts(example_kg, 3)


def test_hierarchy_places_compound_terms_under_their_head(example_kg):
    fgcl = example_kg.concepts["fuzzy-graph-contrastive-learning"]
    assert "graph-contrastive-learning" in fgcl.broader
    assert "fuzzy-graph-contrastive-learning" in example_kg.descendants("contrastive-learning")


def test_one_word_name_propagates_in_its_own_case_only():
    # "SimplE" (a method) must not turn every "simple" in the corpus into a mention of it
    kg = extract_corpus([
        Paper("a", "", "We propose SimplE, a tensor factorization model for link prediction."),
        Paper("b", "", "A simple baseline is hard to beat for link prediction."),
        Paper("c", "", "We compare against SimplE on link prediction."),
        Paper("d", "", "Simple models of link prediction are robust."),
    ], span_model=False)
    found = {(m.paper, m.text) for m in kg.mentions if m.concept == "simple"}
    assert found == {("a", "SimplE"), ("c", "SimplE")}
