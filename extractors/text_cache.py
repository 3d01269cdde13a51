"""What extraction keeps per text between builds into one ``OUT`` (incremental builds).

Everything the pipeline finds in a text that does not depend on the concept registry:
its tokens, sentences, coined names and the span model's terms. A text found here
(:func:`~extractors.pipeline.cache_key`: a hash of the text, the span model's weights
and :func:`~extractors.pipeline.pipeline_fingerprint`) skips the tokenizer, the span model, the
sentencizer and the patterns; only the concept matcher (which depends on the
corpus's acronyms) runs again, on a ``Doc`` rebuilt from the kept tokens.

On disk: ``extract-cache.json`` (spans per text key) and ``extract-tokens.npy``
(every text's token bounds, one array, read without pickle).
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import NamedTuple

import numpy as np

from kg.core.errors import Messages
from kg.core.layout import CACHE, TOKENS

__all__ = ["TextRecord", "VERSION", "read", "write"]

#: Bump when what is kept per text changes: older caches are then ignored.
VERSION = 3


class TextRecord(NamedTuple):
    """The registry-independent findings in one text (offsets into that text)."""

    model: list[tuple[int, int, str]]
    sents: list[tuple[int, int]]
    coined: list[tuple[int, int, str]]
    tokens: np.ndarray  # (n, 2) int32: each token's start and end


def read(out: Path) -> dict[str, TextRecord]:
    """The records an earlier build kept in ``out`` (empty if none, stale or unreadable).

    Each record carries a hash of what it holds: a cache that is valid JSON but holds
    something else (edited spans, token bounds moved) is dropped as a whole, with a note on
    stderr, and every text is extracted again.
    """
    try:
        data = json.loads((out / CACHE).read_text(encoding="utf-8"))
        if not isinstance(data, dict) or data.get("version") != VERSION:
            return {}
        tokens = np.load(out / TOKENS, allow_pickle=False)
        records = {}
        for key, (model, sents, coined, start, stop, digest) in data["texts"].items():
            record = TextRecord([tuple(m) for m in model], [tuple(s) for s in sents],
                                [tuple(c) for c in coined], tokens[start:stop])
            if _digest(key, record) != digest:
                raise _Mismatch
            records[key] = record
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return {}
    except _Mismatch:
        print(f"kg: note: {Messages.CACHE_MISMATCH.format(path=out / CACHE)}", file=sys.stderr,
              flush=True)
        return {}
    return records


class _Mismatch(Exception):
    pass


def _digest(key: str, record: TextRecord) -> str:
    """A hash of ``record`` under ``key``: what :func:`read` checks before trusting it."""
    digest = hashlib.sha1(key.encode())
    digest.update(json.dumps([record.model, record.sents, record.coined]).encode())
    digest.update(np.ascontiguousarray(record.tokens, dtype=np.int32).tobytes())
    return digest.hexdigest()


def write(out: Path, records: Mapping[str, TextRecord]) -> None:
    """Keep ``records`` in ``out`` (sorted by key, so the files are deterministic).

    Written one record at a time (``records`` may read each one from a file when asked
    for it, as extraction's :class:`~extractors.span_file.SpanFile` does): nothing of the
    whole cache is held at once, neither its JSON nor its token array.
    """
    keys = sorted(records)
    rows = [len(records[key].tokens) for key in keys]
    with open(out / TOKENS, "wb") as f:
        # the header np.save writes for the whole array, then each record's rows
        np.lib.format.write_array_header_1_0(f, {
            "descr": np.lib.format.dtype_to_descr(np.dtype(np.int32)),
            "fortran_order": False, "shape": (sum(rows), 2)})
        for key in keys:
            f.write(np.ascontiguousarray(records[key].tokens, dtype=np.int32).tobytes())
    with open(out / CACHE, "w", encoding="utf-8") as f:
        # the bytes of json.dumps({"version": VERSION, "texts": {...}}), a text at a time
        f.write(f'{{"version":{json.dumps(VERSION)},"texts":{{')
        start = 0
        for n, (key, length) in enumerate(zip(keys, rows, strict=True)):
            r = records[key]
            entry = [r.model, r.sents, r.coined, start, start + length, _digest(key, r)]
            f.write(("," if n else "") + json.dumps(key) + ":"
                    + json.dumps(entry, separators=(",", ":")))
            start += length
        f.write("}}")
