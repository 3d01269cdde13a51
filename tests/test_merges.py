"""Honest merges (issue 13 item 4): aliases only for synonyms and acronyms, specific methods
under their umbrella, acronyms that are words, ambiguous acronyms, surface variants, labels.

Most checks run on ``tests/data/naacl2024-merges.jsonl``: sentences of NAACL 2024 abstracts
plus a few constructed records (``tests/data/README.md``).
"""

from collections import Counter

import pytest

from extractors.acceptance import Rejected
from extractors.acronyms import common_word, find_definitions
from extractors.concepts import ConceptRegistry
from extractors.lexicon import load_lexicon
from extractors.pipeline import extract_corpus
from kg.core.model import Paper
from kg.core.readers import read_corpus
from kg.core.text import near_duplicate, norm_key
from queries import papers_for_concept
from tests.conftest import ROOT

FIXTURE = ROOT / "tests" / "data" / "naacl2024-merges.jsonl"


@pytest.fixture(scope="module")
def merges_run():
    """The graph of the fixture, and the mentions and concepts the termhood filter left out."""
    rejected = Rejected()
    return extract_corpus(read_corpus([FIXTURE]).papers, rejected=rejected), rejected


@pytest.fixture(scope="module")
def merges_kg(merges_run):
    return merges_run[0]


def _ancestors(lex, cid: str) -> set[str]:
    out, stack = set(), [cid]
    while stack:
        for b in lex.entries[stack.pop()].broader:
            if b not in out:
                out.add(b)
                stack.append(b)
    return out


@pytest.mark.parametrize(("specific", "umbrella"), [
    ("chain-of-thought-prompting", "prompting"),
    ("low-rank-adaptation", "parameter-efficient-fine-tuning"),
    ("mechanistic-interpretability", "interpretability"),
    ("group-relative-policy-optimization", "reinforcement-learning"),
    ("xgboost", "gradient-boosting"),
    ("frechet-inception-distance", "image-generation"),
])
def test_a_specific_method_is_its_own_concept_under_its_umbrella(specific, umbrella):
    lex = load_lexicon()
    assert umbrella in _ancestors(lex, specific)
    spec = lex.entries[specific]
    forms = {norm_key(f) for f in (spec.label, *spec.aliases)}
    umb = lex.entries[umbrella]
    assert not forms & {norm_key(f) for f in (umb.label, *umb.aliases)}
    assert not set(spec.acronyms) & set(umb.acronyms)


def test_lexicon_labels_and_forms_name_one_concept_each():
    lex = load_lexicon()
    labels = Counter(e.label for e in lex.entries.values())
    assert [lab for lab, n in labels.items() if n > 1] == []
    owner: dict[str, str] = {}
    clashes = []
    for e in sorted(lex.entries.values(), key=lambda e: e.id):
        for form in {norm_key(f) for f in (e.label, *e.aliases)}:
            if owner.setdefault(form, e.id) != e.id:
                clashes.append((form, owner[form], e.id))
    assert clashes == []


def test_boosting_in_a_title_is_not_gradient_boosting(merges_kg):
    assert "gradient-boosting" not in {m.concept for m in merges_kg.mentions}
    titles = [p.title for p in merges_kg.papers.values() if "Boosting" in p.title]
    assert len(titles) == 2  # the fixture still has the titles this is about


def test_asking_for_the_umbrella_finds_the_specific_method(merges_kg):
    def ids(text):
        return {r["id"] for r in papers_for_concept(merges_kg, text)}

    cot, lora = "2024.findings-naacl.257", "2024.naacl-long.35"
    assert ids("CoT") == ids("chain-of-thought") == {cot}
    assert ids("prompting") == {cot, "2024.naacl-short.14"}  # CoT is narrower
    assert ids("LoRA") == {lora}
    assert lora in ids("parameter-efficient fine-tuning")


def test_a_word_in_parentheses_is_no_acronym(merges_kg):
    assert list(find_definitions("Instruction (In)Stability of Large Language Models")) == []
    assert list(find_definitions("We study Large Language Models (In) on tasks.")) == []
    assert [d.short for d in find_definitions("Relation Extraction (RE) is hard.")] == ["RE"]
    assert common_word("In") and common_word("IT") and not common_word("AI")
    assert "In" not in {m.text for m in merges_kg.mentions}
    assert not any("In" in c.aliases for c in merges_kg.concepts.values())


def test_an_acronym_with_two_meanings_links_only_where_its_meaning_is_known(merges_kg):
    glm = {(m.paper, m.concept) for m in merges_kg.mentions if m.text.startswith("GLM")}
    assert glm == {("constructed-glm-spelled", "generalized-linear-model")}
    own = {m.paper: m.concept for m in merges_kg.mentions if "(GLM)" in m.text}
    assert own == {"constructed-glm-language": "general-language-model"}


def test_the_lexicon_meaning_of_an_acronym_wins_over_a_corpus_redefinition():
    kg = extract_corpus([
        Paper("a", "", "We propose pairwise preference optimisation (PPO) for ranking."),
        Paper("b", "", "We train the agent with PPO in Atari games."),
    ], span_model=False)
    links = {(m.paper, m.concept) for m in kg.mentions if "PPO" in m.text}
    assert ("b", "proximal-policy-optimization") in links
    assert ("a", "proximal-policy-optimization") not in links


@pytest.mark.parametrize(("a", "b"), [
    ("multi-modal LLMs", "multimodal LLM"), ("GPT-4", "GPT4"), ("GPT4-V", "GPT-4 V"),
    ("supervised fine-tuning", "supervised finetuning"), ("pre-trained models", "pretrained model"),
    ("non-linear", "nonlinear"), ("GPUs", "GPU"), ("Llama-2-7B", "Llama 2 7B"),
])
def test_surface_variants_share_one_key(a, b):
    assert norm_key(a) == norm_key(b)


@pytest.mark.parametrize(("a", "b"), [
    ("graph neural network", "neural graph network"), ("pre training", "training"),
    ("GPT-4", "GPT-40"), ("supervised learning", "unsupervised learning"),
])
def test_different_words_keep_different_keys(a, b):
    assert norm_key(a) != norm_key(b)


def test_surface_variants_are_one_concept_in_a_graph(merges_run):
    kg, rejected = merges_run  # "GPU" is too generic to keep: still one concept, rejected
    by_text = {m.text: m.concept for m in [*kg.mentions, *rejected.mentions]}
    assert by_text["multi-modal LLMs"] == by_text["multimodal LLM"]
    assert by_text["GPUs"] == by_text["GPU"]


def test_no_two_concepts_share_a_label(merges_kg):
    labels = Counter(c.label for c in merges_kg.concepts.values())
    assert [lab for lab, n in labels.items() if n > 1] == []


def test_a_new_key_with_a_taken_label_joins_that_concept():
    registry = ConceptRegistry()
    first = registry.new_concept("gpus", "GPU", origin="model")
    assert registry.new_concept("gpu", "GPU", origin="model") == first
    assert registry.by_key == {"gpus": first, "gpu": first}


def test_names_that_differ_by_a_letter_are_not_merged():
    assert not near_duplicate(norm_key("LLaVA-13B model"), norm_key("LLaMA 13B model"))
    assert not near_duplicate("generalized linear model", "generative linear model")
    assert near_duplicate("hierarchial clustering", "hierarchical clustering")
