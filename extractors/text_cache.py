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


def write(out: Path, records: dict[str, TextRecord]) -> None:
    """Keep ``records`` in ``out`` (sorted by key, so the files are deterministic)."""
    texts, arrays, start = {}, [], 0
    for key in sorted(records):
        r = records[key]
        texts[key] = [r.model, r.sents, r.coined, start, start + len(r.tokens), _digest(key, r)]
        arrays.append(r.tokens)
        start += len(r.tokens)
    tokens = np.concatenate(arrays).astype(np.int32) if arrays else np.zeros((0, 2), np.int32)
    with open(out / TOKENS, "wb") as f:
        np.save(f, tokens, allow_pickle=False)
    (out / CACHE).write_text(json.dumps({"version": VERSION, "texts": texts},
                                        separators=(",", ":")), encoding="utf-8")
