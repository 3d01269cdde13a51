"""Corpus-adaptive term discovery (issue 13): one-word domain terms and topics from corpus
statistics, generic words kept out, author keywords matched corpus-wide, nested terms
yielding their broader concept."""

from collections import Counter

import pytest

from extractors.acceptance import TermAcceptance, malformed
from extractors.concepts import ConceptRegistry
from extractors.consolidate import extend_cut_terms, propagatable
from extractors.pipeline import extract_corpus
from extractors.termhood import CorpusStats
from kg.core.model import Concept, Mention, Paper
from kg.core.text import norm_key

# A small synthetic corpus about LLM hallucination: "hallucination" is rare in general
# English and the corpus keeps coming back to it; "performance" is everywhere.
PAPERS = [
    Paper("h1", "Hallucination in large language models",
          "We measure hallucination. Hallucination grows with length, and performance drops."),
    Paper("h2", "Detecting hallucination", "A detector flags hallucination in summaries."),
    Paper("h3", "Unlearning private facts", "Unlearning removes facts; unlearning is cheap."),
    Paper("h4", "Unlearning at scale", "We evaluate performance of unlearning on 13B models."),
    Paper("h5", "Reasoning with tools", "The coefficient is small and performance is good."),
]


def _decide(labels, papers=PAPERS, origin="model"):
    concepts = {w: Concept(w, w, origin=origin) for w in labels}
    mentions = [Mention(p.id, w, "abstract", 0, 1, w, w, "model") for w in labels
                for p in papers if w.lower() in (p.title + " " + p.abstract).lower()]
    stats = CorpusStats.of(papers)
    return {w: d.accepted for w, d in
            TermAcceptance().decide(concepts, mentions, stats=stats).items()}


def test_one_word_domain_terms_come_from_corpus_statistics():
    got = _decide(["hallucination", "unlearning", "performance", "coefficient"])
    # rare in general English, topical here (titles, repeated): concepts even as one word;
    # "coefficient" is as rare in English but said once, in passing
    assert got == {"hallucination": True, "unlearning": True, "performance": False,
                   "coefficient": False}


def test_one_word_domain_terms_propagate_only_with_statistics():
    hall = Concept("hallucination", "hallucination", origin="model")
    assert not propagatable(hall)
    assert propagatable(hall, CorpusStats.of(PAPERS))


@pytest.mark.parametrize("label", ["state-of-the-art", "accuracy", "AI", "13B", "GPUs",
                                   "performance", "probabilistic"])
def test_generic_words_are_no_concepts(label):
    papers = [Paper(str(i), "Graph search", f"The {label} of our {label} models.")
              for i in range(4)]
    assert _decide([label], papers) == {label: False}


@pytest.mark.parametrize("label", ["state-of-the-art", "accuracy"])
def test_vague_curated_words_are_no_hubs(label):
    papers = [Paper(str(i), "Graph search", f"The {label} is high.") for i in range(4)]
    assert _decide([label], papers, origin="lexicon") == {label: False}
    # unless the corpus is about it: in enough of its titles
    topical = [Paper(str(i), f"On {label}", f"The {label} is high.") for i in range(4)]
    assert _decide([label], topical, origin="lexicon") == {label: True}


def test_a_vague_curated_word_spaced_is_no_hub_either():
    # the label a concept takes from its most used form may be "state of the art"
    papers = [Paper(str(i), "Graph search", "Beats the state of the art.") for i in range(4)]
    assert _decide(["state of the art"], papers, origin="lexicon") == {"state of the art": False}


def test_common_word_is_a_concept_where_the_corpus_makes_it_a_topic():
    topic = [Paper(f"r{i}", f"Reasoning in model {i}", "Chain-of-thought reasoning helps.")
             for i in range(5)]
    other = [Paper(f"o{i}", f"Graph search {i}", "Some reasoning is needed here.")
             for i in range(200)]
    assert _decide(["reasoning"], topic + other) == {"reasoning": True}
    assert _decide(["reasoning"], other) == {"reasoning": False}


@pytest.mark.parametrize("span", ["o3-mini demonstrated human-like probabilistic learning",
                                  "unclear whether"])
def test_clause_like_spans_are_no_terms(span):
    assert malformed(span) is not None


def test_author_keyword_is_matched_in_every_abstract():
    papers = [Paper("a", "Safe forgetting", "We study machine unlearning for privacy.",
                    keywords=["Machine Unlearning"]),
              Paper("b", "Another paper", "Machine unlearning removes training data.")]
    kg = extract_corpus(papers, span_model=False)
    linked = {(m.paper, m.concept) for m in kg.mentions}
    assert ("b", "machine-unlearning") in linked and ("a", "machine-unlearning") in linked
    assert kg.concepts["machine-unlearning"].origin == "keyword"


def test_generic_keyword_is_no_concept():
    papers = [Paper("a", "T", "Performance of x is good.", keywords=["performance"])]
    kg = extract_corpus(papers, span_model=False)
    assert "performance" not in kg.concepts


def test_nested_terms_yield_their_broader_concept():
    papers = [Paper("a", "Robots", "We build vision-based tactile sensing for grasping."),
              Paper("b", "Hands", "We study optical tactile sensing in hands."),
              Paper("c", "Other", "Tactile sensing matters.")]
    # without the span model, give the two longer terms as author keywords
    papers[0].keywords, papers[1].keywords = ["vision-based tactile sensing"], \
        ["optical tactile sensing"]
    kg = extract_corpus(papers, span_model=False)
    by_label = {c.label: c for c in kg.concepts.values()}
    assert "tactile sensing" in by_label
    broader = by_label["tactile sensing"].id
    assert broader in by_label["vision-based tactile sensing"].broader
    assert broader in by_label["optical tactile sensing"].broader
    # and the broader term is found where a paper names it alone
    assert ("c", broader) in {(m.paper, m.concept) for m in kg.mentions}


def test_domain_words_become_concepts_where_no_extractor_marked_them():
    papers = [Paper("m1", "Misinformation on social platforms",
                    "Misinformation spreads fast; misinformation is hard to stop."),
              Paper("m2", "Fact checking", "Crowds flag misinformation. We study misinformation."),
              Paper("m3", "Other", "Link prediction with graphs; we saw misinformation once.")]
    kg = extract_corpus(papers, span_model=False)
    linked = {p for p, c in {(m.paper, m.concept) for m in kg.mentions} if c == "misinformation"}
    assert linked == {"m1", "m2", "m3"}


def test_a_word_inside_a_hyphenated_word_is_no_mention():
    papers = [Paper(f"u{i}", "Unlearning for models", "Unlearning works; unlearning is cheap. "
                    "Non-unlearning baselines fail.") for i in range(3)]
    kg = extract_corpus(papers, span_model=False)
    texts = {m.text.lower() for m in kg.mentions if m.concept == "unlearning"}
    assert texts == {"unlearning"}
    assert all(papers[0].abstract[m.start - 1:m.start] != "-" for m in kg.mentions
               if m.concept == "unlearning")


def test_empty_head_on_an_accepted_concept_is_no_concept():
    concepts = {"d": Concept("d", "misinformation detection", origin="model"),
                "m": Concept("m", "misinformation detection method", origin="model")}
    mentions = [Mention(p, c, "abstract", 0, 1, "x", "x", "model") for c in concepts
                for p in ("a", "b")]
    stats = CorpusStats.of([Paper("a", "t", "x"), Paper("b", "t", "x")])
    got = TermAcceptance().decide(concepts, mentions, stats=stats)
    assert got["d"].accepted and not got["m"].accepted


def test_corpus_topic_said_once_in_passing_is_no_link_of_that_paper():
    topic = [Paper(f"r{i}", f"Reasoning in model {i}", "Chain-of-thought reasoning helps.")
             for i in range(5)]
    other = [Paper(f"o{i}", f"Graph search {i}", "Some reasoning is needed here.")
             for i in range(200)]
    again = [Paper("a", "Graph search", "Reasoning first; then reasoning again.")]
    papers = topic + other + again
    concepts = {"reasoning": Concept("reasoning", "reasoning", origin="model")}
    mentions = [Mention(p.id, "reasoning", f, 0, 1, "reasoning", "", "model")
                for p in papers for f in ("title", "abstract")
                for _ in range(getattr(p, f).lower().count("reasoning"))]
    kept, accepted, decisions = TermAcceptance().apply(concepts, mentions,
                                                       stats=CorpusStats.of(papers))
    assert decisions["reasoning"].accepted and "reasoning" in accepted
    # the papers that name it in their title or say it again link to it; the 200 that say
    # it once do not
    assert {m.paper for m in kept} == {p.id for p in topic} | {"a"}


def _cut_mentions(papers, phrase, cid):
    """A mention of ``phrase`` at each of its occurrences (as model spans and corpus matches)."""
    out = []
    for p in papers:
        for f in ("title", "abstract"):
            text = getattr(p, f)
            at = text.lower().find(phrase)
            while at >= 0:
                out.append(Mention(p.id, cid, f, at, at + len(phrase), text[at:at + len(phrase)],
                                   "", "model" if f == "title" else "corpus"))
                at = text.lower().find(phrase, at + 1)
    return out


def test_a_term_that_always_follows_one_word_is_extended_to_it():
    papers = [Paper("a", "Robust Fake News Detection", "A fake news detection model."),
              Paper("b", "Fake news", "We study fake news detection on social media.")]
    reg = ConceptRegistry()
    cid = reg.new_concept("news detection", "news detection", origin="model", ctype="task")
    concepts = {cid: reg.concepts[cid]}
    votes = {cid: Counter({"task": 2})}
    out = extend_cut_terms(_cut_mentions(papers, "news detection", cid), concepts, reg, papers,
                           CorpusStats.of(papers), votes)
    assert [m.text for m in out] == ["Fake News Detection", "fake news detection",
                                     "fake news detection"]
    (new,) = {m.concept for m in out}
    assert reg.concepts[new].label == "fake news detection" and reg.concepts[new].type == "task"
    assert new in concepts and cid not in concepts and votes[new]["task"] == 2
    assert all(m.text == getattr(next(p for p in papers if p.id == m.paper), m.field)[
        m.start:m.end] for m in out)


@pytest.mark.parametrize("abstracts", [
    # one occurrence stands without the word: the term is a term of its own
    ["A fake news detection model.", "News detection at scale is hard."],
    # two different words before it
    ["A fake news detection model.", "Multimodal news detection works."],
    # a word that opens no term: a light modifier, a gerund, a verb (followed by a
    # determiner elsewhere)
    ["A novel news detection model.", "Novel news detection works."],
    ["Improving news detection helps.", "Improving news detection is hard."],
    ["It employs news detection here.", "It employs news detection. It employs the rest."],
    # a name before it is no modifier of the term
    ["We use BERT news detection here.", "BERT news detection works."],
])
def test_a_term_with_free_or_varied_left_contexts_is_left_alone(abstracts):
    papers = [Paper(str(i), "On media", a) for i, a in enumerate(abstracts)]
    reg = ConceptRegistry()
    cid = reg.new_concept("news detection", "news detection", origin="model", ctype="task")
    ms = _cut_mentions(papers, "news detection", cid)
    out = extend_cut_terms(ms, {cid: reg.concepts[cid]}, reg, papers, CorpusStats.of(papers))
    assert out == ms


def test_news_is_no_plural_of_new():
    assert norm_key("fake news") != norm_key("fake new")
    assert norm_key("News") == norm_key("news") == "news"
    assert norm_key("lenses") == norm_key("lens")


@pytest.mark.parametrize("label, short, accepted", [
    ("referring expression comprehension", "REC", True),
    ("referring image segmentation", "RIS", True),
    ("allocating low-rank adaptation", "ALORA", False),  # a cut definition
])
def test_acronym_long_form_opening_with_a_gerund_is_a_term_where_its_initials_spell_it(
        label, short, accepted):
    concepts = {"c": Concept("c", label, "task", aliases=[short], origin="acronym")}
    mentions = [Mention("p", "c", "abstract", 0, 1, "x", "x", "acronym")]
    assert TermAcceptance().decide(concepts, mentions)["c"].accepted is accepted


def test_coined_short_form_of_a_long_form_that_is_no_term_is_the_concept():
    # "an innovative approach we call allocating low-rank adaptation (ALoRA)": the long form
    # found is no term, the coined short form is a name, and labels the concept
    concepts = {"c": Concept("c", "allocating low-rank adaptation", "method",
                             aliases=["ALoRA"], origin="acronym")}
    mentions = [Mention("p", "c", "title", 0, 5, "ALoRA", "ALoRA", "acronym")]
    kept, accepted, _ = TermAcceptance().apply(concepts, mentions)
    assert accepted["c"].label == "ALoRA"
    assert "allocating low-rank adaptation" in accepted["c"].aliases
    assert kept == mentions


def test_vague_head_term_its_paper_says_again_is_a_term():
    papers = [Paper("p", "Sample diversity", "Parametric knowledge helps. We probe parametric "
                    "knowledge."), Paper("q", "Other", "Parametric knowledge is cited once.")]
    stats = CorpusStats.of(papers)
    concepts = {"k": Concept("k", "parametric knowledge", origin="model")}

    def accepted(mentions):
        return TermAcceptance().decide(concepts, mentions, stats=stats)["k"].accepted

    once = [Mention("q", "k", "abstract", 0, 20, "Parametric knowledge", "", "model")]
    again = [Mention("p", "k", "abstract", a, a + 20, "x", "", "model") for a in (0, 40)]
    # "knowledge" names no kind: said once, "parametric knowledge" is no term; said again in
    # one paper (or named in its title), it is what that paper is about
    assert not accepted(once)
    assert accepted(again)


def test_acronym_that_outperforms_is_a_method_whatever_its_long_form_head():
    from extractors.consolidate import _type_by_context

    text = ("We propose Mixture of Word Experts (MoWE). MoWE outperforms MoE models. "
            "NER models are trained on named entity recognition (NER).")
    papers = [Paper("p", "T", text)]
    concepts = {"m": Concept("m", "mixture of word expert", "task", aliases=["MoWE"],
                             origin="acronym"),
                "n": Concept("n", "named entity recognition", "task", aliases=["NER"],
                             origin="acronym")}

    def at(cid, form, nth=0):
        start = -1
        for _ in range(nth + 1):
            start = text.index(form, start + 1)
        return Mention("p", cid, "abstract", start, start + len(form), form, "", "acronym")

    mentions = [at("m", "MoWE"), at("m", "MoWE", 1), at("n", "NER"), at("n", "NER", 1)]
    _type_by_context(mentions, concepts, papers)
    # a short form that outperforms names the authors' system ...
    assert concepts["m"].type == "method"
    # ... but "NER models" are models for a task: a task's acronym keeps its type
    assert concepts["n"].type == "task"


def test_relational_noun_is_no_one_word_concept():
    # "subset" and "interplay" are rare in general English and in titles here, but the corpus
    # says what they are of: no concept alone; "hallucination" and the property
    # "plausibility" are
    papers = [Paper(str(i), f"On the interplay of hallucination and plausibility {i}",
                    "A subset of hallucination cases, and another subset of them. The "
                    "interplay between hallucination and the plausibility of answers; "
                    "plausibility matters.") for i in range(3)]
    stats = CorpusStats.of(papers)
    assert not stats.domain_word("subset") and not stats.domain_word("interplay")
    assert stats.domain_word("hallucination") and stats.domain_word("plausibility")
    assert not TermAcceptance().one_word("subset", stats)
    assert TermAcceptance().one_word("hallucination", stats)


@pytest.mark.parametrize("long_form, accepted", [
    ("collaborative", False), ("Auto-Regressive", False), ("Out-Of-Vocabulary", True),
    ("HumanRankEval", True)])
def test_acronym_of_one_adjective_defines_a_modifier_not_a_concept(long_form, accepted):
    # "the intricate collaborative (CO) signals", "Auto-Regressive (AR) models": the term is
    # the phrase the acronym modifies, not the adjective
    concepts = {"c": Concept("c", long_form, "method", aliases=["X"], origin="acronym")}
    mentions = [Mention("p", "c", "abstract", 0, 1, "x", "x", "acronym")]
    assert TermAcceptance().decide(concepts, mentions)["c"].accepted is accepted


def test_an_empty_head_is_no_one_word_concept():
    # "paradigm" is rare in general English and the corpus says it often, but a head that
    # says nothing before it ("learning paradigm") says nothing alone either
    papers = [Paper(str(i), "Machine unlearning" if i else "A paradigm for unlearning",
                    "This paradigm is a paradigm for unlearning. Unlearning works.")
              for i in range(3)]
    stats = CorpusStats.of(papers)
    assert stats.domain_word("paradigm")
    assert not TermAcceptance().one_word("paradigm", stats)
    assert TermAcceptance().one_word("unlearning", stats)


@pytest.mark.parametrize("label", ["knowledge-augmented phrase retrieval model",
                                   "revenue flows of fraud detection"])
def test_a_long_phrase_its_one_paper_says_once_is_no_term(label):
    # C-value: the longer a candidate, the more occurrences it needs; a four-word phrase
    # said once, outside the title, is a description made for that sentence, whatever
    # its head or the known concept under it
    stats = CorpusStats.of([Paper("p", "T", "x"), Paper("q", "T", "x")])
    concepts = {"f": Concept("f", "foundation model", origin="lexicon"),
                "x": Concept("x", label, "method", origin="model", broader=["f"])}

    def accepted(fields):
        mentions = [Mention("p", "x", f, 10 * i, 10 * i + 5, label, label, "model")
                    for i, f in enumerate(fields)]
        return TermAcceptance().decide(concepts, mentions, stats=stats)["x"].accepted

    assert not accepted(["abstract"])
    # said again, or named in the title, it is what the paper is about
    assert accepted(["abstract", "abstract"])
    assert accepted(["title"])
    # ... and without the corpus's statistics the rule is off, as the other corpus rules
    assert TermAcceptance().decide(concepts, [Mention("p", "x", "abstract", 0, 5, label, label,
                                                      "model")])["x"].accepted


def test_a_long_description_of_a_resource_said_once_is_a_term():
    # a paper releases a dataset under its description, and need not repeat it
    stats = CorpusStats.of([Paper("p", "T", "x")])
    concepts = {"d": Concept("d", "news media reliability dataset", "dataset", origin="model")}
    mentions = [Mention("p", "d", "abstract", 0, 5, "x", "x", "model")]
    assert TermAcceptance().decide(concepts, mentions, stats=stats)["d"].accepted


def test_a_one_paper_term_said_again_is_a_term_however_the_second_use_was_found():
    # "public key" found once by the span model and matched again by propagation (or inside
    # "user public key"): its paper says it again, which makes it central there
    stats = CorpusStats.of([Paper("p", "T", "x"), Paper("q", "T", "x")])
    concepts = {"k": Concept("k", "public key", "concept", origin="model")}

    def accepted(extractors):
        mentions = [Mention("p", "k", "abstract", 20 * i, 20 * i + 10, "public key", "", e)
                    for i, e in enumerate(extractors)]
        return TermAcceptance().decide(concepts, mentions, stats=stats)["k"].accepted

    assert not accepted(["model"])
    assert accepted(["model", "model"])
    assert accepted(["model", "corpus"])
