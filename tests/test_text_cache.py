"""The text cache of incremental builds (extractors.text_cache): what it writes is what it
reads, a record is read from the files when asked for (not held), and files that are not
what their hashes say, of another version or cut short are not trusted."""

from __future__ import annotations

import json
import tracemalloc

import numpy as np
import pytest

from extractors import text_cache
from extractors.text_cache import TextCache, TextRecord
from kg.core.layout import CACHE, TOKENS


def _record(n: int) -> TextRecord:
    """A record of a text about ``n`` sentences long, a coined name that is not ASCII."""
    tokens = np.arange(n * 40, dtype=np.int32).reshape(-1, 2) * 3
    return TextRecord(model=[(i * 30, i * 30 + 12, "Method") for i in range(n)],
                      sents=[(i * 100, i * 100 + 99) for i in range(n)],
                      coined=[(5, 11, f"Näive{n}")], tokens=tokens)


def _same(a: TextRecord, b: TextRecord) -> bool:
    return (a.model, a.sents, a.coined) == (b.model, b.sents, b.coined) \
        and a.tokens.dtype == b.tokens.dtype and np.array_equal(a.tokens, b.tokens)


@pytest.fixture
def written(tmp_path):
    records = {f"{k:040x}": _record(k % 7) for k in range(60)}  # (k % 7 == 0: no tokens)
    text_cache.write(tmp_path, records)
    return tmp_path, records


def test_what_is_written_is_read_back(written):
    out, records = written
    cache = text_cache.read(out)
    assert sorted(cache) == sorted(records) and len(cache) == len(records)
    assert all(_same(cache[k], r) for k, r in records.items())
    # written again from what was read: the same bytes
    again = out / "again"
    again.mkdir()
    text_cache.write(again, cache)
    for name in (CACHE, TOKENS):
        assert (again / name).read_bytes() == (out / name).read_bytes()
    assert np.load(out / TOKENS).shape == (sum(len(r.tokens) for r in records.values()), 2)


def test_records_are_read_when_asked_for_not_held(written):
    out, records = written
    tracemalloc.start()
    try:
        cache = text_cache.read(out)
        lazy = tracemalloc.get_traced_memory()[0]
        held = dict(cache.items())  # every record as Python objects
        whole = tracemalloc.get_traced_memory()[0] - lazy
    finally:
        tracemalloc.stop()
    assert len(held) == len(records)
    assert lazy < whole / 5, (lazy, whole)


def test_set_delete_and_clear(written):
    out, records = written
    cache = text_cache.read(out)
    first, second = sorted(records)[:2]
    cache[first] = _record(9)  # set here: shadows the file's
    del cache[second]
    assert _same(cache[first], _record(9)) and second not in cache
    assert len(cache) == len(records) - 1
    with pytest.raises(KeyError):
        cache[second]
    cache.clear()
    assert len(cache) == 0 and first not in cache
    cache["new"] = _record(2)  # usable after clear (its files closed)
    assert list(cache) == ["new"]


def test_an_edited_line_drops_the_whole_cache_with_a_note(written, capsys):
    out, _ = written
    header, *lines = (out / CACHE).read_text().splitlines()
    line = json.loads(lines[1])
    assert line[2]
    line[2] = [[s + 1, e] for s, e in line[2]]  # its sentences moved
    lines[1] = json.dumps(line)
    (out / CACHE).write_text("\n".join([header, *lines]) + "\n")
    assert len(text_cache.read(out)) == 0
    assert "does not hold what its hashes say" in capsys.readouterr().err


@pytest.mark.parametrize("damage", ["version 3", "tokens cut short", "no tokens",
                                    "not json"])
def test_a_cache_of_another_version_or_damaged_is_empty(written, damage, capsys):
    out, _ = written
    if damage == "version 3":  # the format before: one JSON object on one line
        (out / CACHE).write_text('{"version":3,"texts":{}}', encoding="utf-8")
    elif damage == "tokens cut short":
        data = (out / TOKENS).read_bytes()
        (out / TOKENS).write_bytes(data[:len(data) - 8])
    elif damage == "no tokens":
        (out / TOKENS).unlink()
    else:
        (out / CACHE).write_text('{"version":4}\n[not json', encoding="utf-8")
    cache = text_cache.read(out)
    assert isinstance(cache, TextCache) and len(cache) == 0
    assert capsys.readouterr().err == ""


def test_a_corpus_s_cache_keys_are_its_texts_keys_at_20_bytes_a_text() -> None:
    # a build holds a key per text while it extracts (issue 17: a hex string each, ~97 bytes)
    from extractors.pipeline import cache_digest, cache_key

    texts = [f"Text number {n}." for n in range(20_000)]
    tracemalloc.start()
    keys = text_cache.CacheKeys(cache_digest(t, "fp") for t in texts)
    held = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    assert held / len(texts) < 25
    plain = [cache_key(t, "fp") for t in texts]
    assert list(keys) == plain and keys[-1] == plain[-1] and keys[5:7] == plain[5:7]
    assert all(k in keys for k in plain[::97])
    assert cache_key("Another text.", "fp") not in keys and "not a key" not in keys
    with pytest.raises(ValueError, match="20 bytes"):
        text_cache.CacheKeys([b"short"])
