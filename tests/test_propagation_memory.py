"""What consolidation's propagation chain holds at once (issue 17): its results are the same,
its transient memory must not grow by a key tuple or a string copy per mention."""

import random
import tracemalloc

import spacy

from extractors.consolidate import DocSpans, propagate
from kg.core.model import (
    Concept,
    Mention,
    MentionTable,
    Paper,
    merge_mentions,
    sorted_mentions,
)


def _mentions(n, texts, seed=7):
    rnd = random.Random(seed)
    out = []
    for _ in range(n):
        start = rnd.randrange(2000)
        out.append(Mention(f"p{rnd.randrange(texts):05d}", f"c{rnd.randrange(50)}",
                           rnd.choice(["title", "abstract", "keywords"]), start,
                           start + rnd.randrange(1, 30), "t", "s", "model"))
    return out


def test_sorted_mentions_is_the_stable_sort_by_paper_field_offset_concept():
    ms = _mentions(5000, 300)
    # equal keys keep their order (same paper, title-or-not, bounds and concept)
    ms += [Mention(m.paper, m.concept, m.field, m.start, m.end, "u", "s", "corpus")
           for m in ms[:500]]
    key = lambda m: (m.paper, m.field != "title", m.start, m.end, m.concept)  # noqa: E731
    got = sorted_mentions(iter(ms))
    assert [id(m) for m in got] == [id(m) for m in sorted(ms, key=key)]


def test_sorted_mentions_holds_no_key_per_mention():
    # a sort of the whole list by a key tuple held ~100 bytes a mention at once (the
    # tuples); sorted text by text it is a pointer or two a mention
    ms = _mentions(40_000, 2000)
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        got = sorted_mentions(ms)
        peak = tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
    assert len(got) == len(ms)
    assert peak / len(ms) < 48, f"{peak / len(ms):.0f} bytes a mention"


def test_merge_mentions_is_the_stable_sort_of_both_lists():
    key = lambda m: (m.paper, m.field != "title", m.start, m.end, m.concept)  # noqa: E731
    for in_order in (True, False):
        ms = _mentions(3000, 200, seed=3)
        if in_order:
            ms = sorted_mentions(ms)
        more = _mentions(700, 250, seed=4)
        # ties both ways: equal keys in the list and in what is added
        more += [Mention(m.paper, m.concept, m.field, m.start, m.end, "u", "s", "corpus")
                 for m in ms[::9]]
        expected = [id(m) for m in sorted([*ms, *more], key=key)]
        got = merge_mentions(ms, iter(more))
        assert got is ms and [id(m) for m in got] == expected
    assert merge_mentions(ms, []) is ms


def test_merge_mentions_makes_no_second_list_of_the_corpus():
    # propagation and the name pass add mentions to a corpus's sorted list: sorted again
    # with them (sorted_mentions), a second list and its groups were held beside it,
    # ~23-30 bytes a mention of the corpus (~70-100 MB at 100,000 papers)
    ms = sorted_mentions(_mentions(40_000, 2000))
    more = _mentions(2000, 2000, seed=8)
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        merge_mentions(ms, more)
        peak = tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
    assert len(ms) == 42_000
    # (a second list alone is 8 bytes a mention; sorted again, ~23 here)
    assert peak / len(ms) < 8, f"{peak / len(ms):.1f} bytes a mention of the corpus"


def test_propagated_mentions_share_their_sentence_with_the_texts_mentions():
    # one string per sentence of a text, not a copy for each mention propagation adds
    text = "We compare against SimplE on link prediction. It is fast."
    ds = DocSpans("c", "abstract", [(0, 45), (46, 57)], [], [])
    concepts = {"simple": Concept("simple", "SimplE", origin="model"),
                "lp": Concept("lp", "link prediction", origin="lexicon")}
    old = Mention("c", "lp", "abstract", 29, 44, "link prediction",
                  "".join(text[:45]), "lexicon")
    got = propagate([ds], [Paper("c", "", text)], [old], concepts,
                    spacy.blank("en").tokenizer)
    new = [m for m in got if m.extractor == "corpus"]
    assert [(m.text, m.start, m.sentence) for m in new] == [("SimplE", 19, text[:45])]
    assert new[0].sentence is old.sentence
    assert got == [new[0], old]


def test_propagated_mentions_share_their_surfaces_and_offsets():
    # one string per surface and one int per offset over every text matched, not a copy per
    # mention (~90 bytes each): a corpus term is found again and again
    text = "x" * 300 + " We compare against SimplE on link prediction."
    papers = [Paper(f"p{i}", "", text) for i in range(30)]
    found = [DocSpans(p.id, "abstract", [(0, len(text))], [], []) for p in papers]
    concepts = {"simple": Concept("simple", "SimplE", origin="model")}
    a = text.index("SimplE")
    seed = [Mention("p0", "simple", "abstract", a, a + 6, "SimplE", text, "model")]
    got = [m for m in propagate(found, papers, seed, concepts, spacy.blank("en").tokenizer)
           if m.extractor == "corpus"]
    assert len(got) == 29 and {(m.text, m.start, m.end) for m in got} == {("SimplE", a, a + 6)}
    assert len({id(m.text) for m in got}) == 1
    assert len({id(m.start) for m in got}) == len({id(m.end) for m in got}) == 1


def test_a_text_s_mentions_are_found_by_its_paper_and_field():
    # propagation and the name pass read each text's mentions: sorted ones as runs, others
    # grouped; both give every text's, in order, and nothing for a text without any
    from extractors.consolidate import _mentions_by_text

    ms = _mentions(3000, 200, seed=9)
    texts = {(f"p{n:05d}", f) for n in range(205) for f in ("title", "abstract", "keywords")}
    for mentions in (ms, sorted_mentions(ms), MentionTable(sorted_mentions(ms))):
        of_text = _mentions_by_text(mentions)
        for paper, field in texts:
            assert of_text(paper, field) == [m for m in mentions
                                             if (m.paper, m.field) == (paper, field)]


def test_finding_a_text_s_mentions_holds_no_tuple_per_text():
    # a dict of (paper, field) tuples to (start, end) tuples was ~163 bytes a text (~33 MB at
    # 100,000 papers, held through propagation and the name pass), issue 17
    from extractors.consolidate import _mentions_by_text

    ms = MentionTable(sorted_mentions(
        Mention(f"p{n:05d}", "c", field, a, a + 1, "x", "x", "model")
        for n in range(4000) for field in ("title", "abstract") for a in range(3)))
    tracemalloc.start()
    try:
        of_text = _mentions_by_text(ms)
        held = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert len(of_text("p00042", "abstract")) == 3
    assert held / 8000 < 80, f"{held / 8000:.0f} bytes a text"
