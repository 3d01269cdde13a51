"""MentionTable: the mentions consolidation holds, in columns (issue 17)."""

from __future__ import annotations

import dataclasses
import pickle
import random
import sys
import tracemalloc
from collections.abc import Iterator

import pytest

from kg.core.model import (
    KnowledgeGraph,
    Mention,
    MentionTable,
    Paper,
    mention_column,
    merge_mentions,
    sort_mentions,
    sorted_mentions,
)


def _random_mention(rng: random.Random) -> Mention:
    paper = rng.choice("abcde")
    field = rng.choice(["title", "abstract"])
    start = rng.randint(0, 60)
    return Mention(paper, rng.choice(["c1", "c2", "c3"]), field, start,
                   start + rng.randint(0, 5), f"t{start}", f"S {paper} {field}",
                   rng.choice(["model", "lexicon", "name"]),
                   rng.choice([1.0, 1.0, 0.5, 1]))


@pytest.mark.parametrize("seed", range(40))
def test_a_table_reads_sorts_and_merges_as_a_list_does(seed: int) -> None:
    rng = random.Random(seed)
    items = [_random_mention(rng) for _ in range(rng.randint(0, 40))]
    more = [_random_mention(rng) for _ in range(rng.randint(0, 12))]
    table, plain = MentionTable(items), list(items)
    assert list(table) == plain and len(table) == len(plain)
    unsorted = MentionTable(items)  # merged into before it is sorted: sorted first
    assert list(merge_mentions(unsorted, more)) == merge_mentions(list(items), more)
    sort_mentions(table)
    sort_mentions(plain)
    assert list(table) == plain == sorted_mentions(items)
    assert merge_mentions(table, more) is table
    merge_mentions(plain, more)
    assert list(table) == plain
    if plain:
        i = rng.randrange(len(plain))
        table[i] = plain[i] = _random_mention(rng)
        assert table[i] == plain[i] and table[-1] == plain[-1]
        assert table[1:4] == plain[1:4] and table[-3:] == plain[-3:]
        assert table[::2] == plain[::2] and table[::-1] == plain[::-1] and table[5:2] == []
    assert list(pickle.loads(pickle.dumps(table))) == plain


def test_scores_come_back_as_given() -> None:
    table = MentionTable([Mention("p", "c", "title", 0, 1, "x", "x", "model", s)
                          for s in (1.0, 0.25, 1)])
    scores = [m.score for m in table]
    assert scores == [1.0, 0.25, 1] and [type(s) for s in scores] == [float, float, int]
    table[1] = Mention("p", "c", "title", 0, 1, "x", "x", "model")
    assert table[1].score == 1.0


def test_a_table_equals_a_list_of_the_same_mentions_and_a_model_holds_either() -> None:
    ms = [Mention("p", "c", "abstract", 0, 1, "A", "A b.", "lexicon"),
          Mention("q", "c", "title", 0, 1, "A", "A", "model")]
    table = MentionTable(ms)
    assert table == ms and ms == table and table != ms[:1]
    assert KnowledgeGraph(mentions=table) == KnowledgeGraph(mentions=list(ms))
    assert list(KnowledgeGraph(mentions=table).concept_papers["c"]) == ["p", "q"]


def test_a_paper_s_equal_strings_are_one_object() -> None:
    # mentions made in another process carry their own copies of their sentence
    a = Mention("p", "c", "abstract", 0, 1, "A", "".join(["A b."]), "lexicon")
    b = Mention("p", "d", "abstract", 2, 3, "b", "".join(["A b."]), "lexicon")
    table = MentionTable([a, b])
    assert table[0].sentence is table[1].sentence


def test_a_row_takes_less_than_half_a_mention_object() -> None:
    # (a corpus's scores are all 1.0: other scores are kept apart, in a dict)
    rng = random.Random(0)
    items = [dataclasses.replace(_random_mention(rng), score=1.0) for _ in range(10_000)]
    table = MentionTable(items)
    own = sum(sys.getsizeof(getattr(table, name)) for name in MentionTable.__slots__)
    objects = sys.getsizeof(items) + sum(sys.getsizeof(m) for m in items)
    assert own / len(items) < 0.5 * objects / len(items)


@pytest.mark.parametrize("seed", range(20))
def test_passes_that_read_a_table_s_columns_see_what_a_list_gives(seed: int) -> None:
    # the termhood filter's paper runs and the concept filters read a table's paper and
    # concept columns (no mention made for rows they skip); a list the same
    from extractors.acceptance import TOPIC, Decision, _paper_runs, in_passing
    from extractors.consolidate import _of_concepts
    from kg.core.model import mention_column

    rng = random.Random(seed)
    items = [_random_mention(rng) for _ in range(rng.randint(0, 40))]
    tables = [MentionTable(items), MentionTable(sorted_mentions(items))]
    for table, plain in zip(tables, [items, sorted_mentions(items)], strict=True):
        assert mention_column(table, "paper") == [m.paper for m in plain]
        assert mention_column(table, "concept") == mention_column(plain, "concept")
        assert list(_paper_runs(table)) == list(_paper_runs(plain)) == list(
            _paper_runs(iter(plain)))
        assert [m.paper for run in _paper_runs(table) for m in run] == sorted(
            m.paper for m in plain)
        topic = {"c1": Decision(True, TOPIC)}
        assert in_passing(table, topic) == in_passing(plain, topic)
        assert list(_of_concepts(table, {"c2", "c3"})) == [
            m for m in plain if m.concept in ("c2", "c3")]
    with pytest.raises(ValueError, match="not 'text'"):
        mention_column(tables[0], "text")


def _papers_and_mentions(rng: random.Random) -> tuple[dict[str, Paper], list[Mention]]:
    words = ["graph", "net", "GNNs", "learn", "é", "x", "loss"]
    papers = {}
    for pid in "abcd":
        sentences = [" ".join(rng.choice(words) for _ in range(rng.randint(1, 6))) + "."
                     for _ in range(rng.randint(1, 4))]
        papers[pid] = Paper(pid, " ".join(rng.choice(words) for _ in range(3)),
                            " ".join(sentences))
    items = []
    for _ in range(rng.randint(0, 40)):
        paper = papers[rng.choice("abcd")]
        field = rng.choice(["title", "abstract"])
        text = paper.text(field)
        start = rng.randint(0, len(text))
        end = rng.randint(start, len(text))
        a = rng.randint(0, len(text))
        b = rng.randint(a, len(text))
        # a surface and a sentence from the text, or not (propagated, or another text's)
        surface = text[start:end] if rng.random() < 0.8 else f"other {start}"
        sentence = text[a:b] if rng.random() < 0.8 else f"Another {a}."
        items.append(Mention(paper.id, rng.choice(["c1", "c2"]), field, start, end, surface,
                             sentence, rng.choice(["model", "lexicon"]), rng.choice([1.0, 0.5])))
    return papers, items


@pytest.mark.parametrize("seed", range(30))
def test_a_table_that_reads_its_papers_texts_gives_what_it_was_given(seed: int) -> None:
    rng = random.Random(seed)
    papers, items = _papers_and_mentions(rng)
    _, more = _papers_and_mentions(random.Random(seed + 1000))
    more = [m for m in more if m.paper in papers and len(m.text) <= 9]
    table, plain = MentionTable(items, papers=papers), list(items)
    assert list(table) == plain and table.papers is papers
    sort_mentions(table)
    sort_mentions(plain)
    assert list(merge_mentions(table, more)) == merge_mentions(plain, more)
    if plain:
        i = rng.randrange(len(plain))
        table[i] = plain[i] = rng.choice(items)
        assert list(table) == plain and table[i] == plain[i] and table[::-1] == plain[::-1]
    assert list(pickle.loads(pickle.dumps(table))) == plain
    unsorted = MentionTable(reversed(items), papers=papers)  # (ids out of order: permuted)
    sort_mentions(unsorted)
    assert list(unsorted) == sorted_mentions(list(reversed(items)))


@pytest.mark.parametrize("seed", range(30))
def test_merging_a_table_of_the_same_papers_gives_what_merging_its_list_gives(
        seed: int) -> None:
    # term propagation collects its new mentions in such a table, read as it is (issue 17)
    rng = random.Random(seed)
    papers, items = _papers_and_mentions(rng)
    more = _papers_and_mentions(random.Random(seed + 500))[1]
    more = [dataclasses.replace(m, paper=rng.choice("abcd")) for m in more]
    rng.shuffle(more)  # (in no order: the table is sorted as the list would be)
    table = MentionTable(items, papers=papers)
    sort_mentions(table)
    plain = sorted_mentions(items)
    assert list(merge_mentions(table, MentionTable(more, papers=papers))) == \
        merge_mentions(plain, more)
    other = MentionTable(items, papers=dict(papers))  # other papers: read as mentions
    sort_mentions(other)
    extra = MentionTable(more, papers=papers)
    assert list(merge_mentions(other, extra)) == plain and list(extra) == more


@pytest.mark.parametrize("seed", range(30))
def test_keeping_some_rows_gives_what_a_filtered_list_gives(seed: int) -> None:
    rng = random.Random(seed)
    papers, items = _papers_and_mentions(rng)
    table = MentionTable(items, papers=papers) if seed % 2 else MentionTable(items)
    if seed % 3:
        sort_mentions(table)
        items = sorted_mentions(items)
    flags = [rng.random() < 0.6 for _ in items]
    table.keep(flags)
    kept = [m for m, f in zip(items, flags, strict=True) if f]
    assert list(table) == kept and len(table) == len(kept)
    more = [m for m in _papers_and_mentions(random.Random(seed + 7))[1] if m.paper in papers
            and len(m.text) <= 9]
    # still in order where it was: a merge gives what one into the filtered list gives
    assert list(merge_mentions(table, more)) == merge_mentions(kept, more)
    with pytest.raises(ValueError, match="flags for a table"):
        table.keep([True])


def test_a_table_that_reads_its_papers_texts_holds_no_copy_of_them() -> None:
    # surfaces and sentences of a paper's text are kept as bounds in it (issue 17); without
    # the papers, a string per paper is held for each
    rng = random.Random(1)
    papers = {f"p{n}": Paper(f"p{n}", "T", " ".join(str(rng.random()) for _ in range(20)))
              for n in range(2_000)}

    def mentions() -> Iterator[Mention]:
        # each with its own copies (made by a pass, or in another process), as they come
        for p in papers.values():
            for _ in range(3):
                yield Mention(p.id, "c", "abstract", 0, 19, p.abstract[:19],
                              (p.abstract + " ")[:-1], "model")

    def held(**kwargs: object) -> float:
        tracemalloc.start()
        table = MentionTable(mentions(), **kwargs)
        size = tracemalloc.get_traced_memory()[0]
        tracemalloc.stop()
        assert list(table) == list(mentions())
        return size / len(table)

    assert held(papers=papers) < 60 < 150 < held()


def test_merging_holds_a_few_bytes_a_row_added_beside_the_grown_table() -> None:
    # where each added row goes was a list of int objects (~40 bytes a row added: ~34 MB
    # for term propagation's 845,000 rows at 100,000 papers, at the build's peak), issue 17
    rng = random.Random(5)
    papers = {f"p{n:05d}": Paper(f"p{n:05d}", "T", "x " * 900) for n in range(3_000)}

    def rows(n: int, extractor: str) -> list[Mention]:
        out = []
        for _ in range(n):
            p = rng.choice(sorted(papers))
            a = rng.randrange(1500)
            out.append(Mention(p, f"c{rng.randrange(500)}", "abstract", a, a + 3,
                               papers[p].abstract[a:a + 3], papers[p].abstract, extractor))
        return out

    table = MentionTable(sorted_mentions(rows(60_000, "model")), papers=papers)
    more = MentionTable(rows(40_000, "corpus"), papers=papers)
    expected = merge_mentions(list(table), list(more))
    tracemalloc.start()
    try:
        table.merge(more)
        grown, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert list(table) == expected
    beside = (peak - grown) / 40_000
    assert beside < 12, f"{beside:.0f} bytes a row added beside the grown table"


def test_a_table_s_field_column_is_each_row_s_field() -> None:
    rng = random.Random(11)
    items = [_random_mention(rng) for _ in range(50)]
    table = MentionTable(items)
    assert mention_column(table, "field") == [m.field for m in items] == mention_column(
        items, "field")
