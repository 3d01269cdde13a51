"""What extraction keeps per text between builds into one ``OUT`` (incremental builds).

Everything the pipeline finds in a text that does not depend on the concept registry:
its tokens, sentences, coined names and the span model's terms. A text found here
(:func:`~extractors.pipeline.cache_key`: a hash of the text, the span model's weights
and :func:`~extractors.pipeline.pipeline_fingerprint`) skips the tokenizer, the span model, the
sentencizer and the patterns; only the concept matcher (which depends on the
corpus's acronyms) runs again, on a ``Doc`` rebuilt from the kept tokens.

On disk: ``extract-cache.json`` (JSON Lines: a header line, then one line per text, sorted by
key: ``[key, model, sents, coined, start, stop, digest]``) and ``extract-tokens.npy`` (every
text's token bounds, one array; a text's rows are ``start:stop``). :func:`read` checks every
line and keeps only where each is; a record is read from the files when a build asks for it
(:class:`TextCache`): the whole cache of 100,000 papers as Python objects took ~1.1 GB.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import sys
import weakref
from collections.abc import Iterable, Iterator, Mapping, MutableMapping, Sequence
from pathlib import Path
from typing import NamedTuple, overload

import numpy as np

from kg.core.errors import Messages
from kg.core.layout import CACHE, TOKENS

__all__ = ["CacheKeys", "TextCache", "TextRecord", "VERSION", "read", "write"]

#: Bump when what is kept per text changes: older caches are then ignored.
VERSION = 4
#: The first line of ``extract-cache.json`` (a cache of another version is not read further).
_HEADER = f'{{"version":{VERSION}}}\n'.encode()
_TOKEN_BYTES = np.dtype(np.int32).itemsize * 2  # one token's row: its start and end


class TextRecord(NamedTuple):
    """The registry-independent findings in one text (offsets into that text)."""

    model: list[tuple[int, int, str]]
    sents: list[tuple[int, int]]
    coined: list[tuple[int, int, str]]
    tokens: np.ndarray  # (n, 2) int32: each token's start and end


class TextCache(MutableMapping[str, TextRecord]):
    """Text records by key: those of a folder's cache files, each read from them when asked
    for, and those set here (held in memory).

    Deleting a key forgets its record (the files are left as they are); :meth:`clear`
    forgets them all and closes the files.

    Examples
    --------
    >>> cache = TextCache()
    >>> cache["k"] = TextRecord([], [(0, 5)], [], np.zeros((1, 2), np.int32))
    >>> list(cache), "k" in cache, "x" in cache
    (['k'], True, False)
    """

    def __init__(self) -> None:
        self._added: dict[str, TextRecord] = {}
        self._lines: dict[str, tuple[int, int]] = {}  # key -> its line's offset and length
        self._files: tuple[int, int, int] | None = None  # cache fd, tokens fd, data offset
        self._closer: weakref.finalize | None = None

    @classmethod
    def _of(cls, out: Path) -> TextCache:
        """The records of ``out``'s files, each line checked against its hash (empty if
        the files are of another version); :class:`_Mismatch` if one does not match."""
        cache = cls()
        fd = os.open(out / CACHE, os.O_RDONLY)
        try:
            tokens_fd = os.open(out / TOKENS, os.O_RDONLY)
        except OSError:
            os.close(fd)
            raise
        cache._closer = weakref.finalize(cache, _close, fd, tokens_fd)
        # (the files read through the descriptors kept: the same files as pread reads)
        with open(tokens_fd, "rb", closefd=False) as f:
            if np.lib.format.read_magic(f) != (1, 0):
                raise ValueError("not a version 1.0 .npy file")
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(f)
            if fortran or dtype != np.dtype(np.int32) or len(shape) != 2 or shape[1] != 2:
                raise ValueError("not an (n, 2) int32 array")
            cache._files = (fd, tokens_fd, f.tell())
        with open(fd, "rb", closefd=False) as f:
            # (a cache of another version may be one long line: only its start is read)
            if f.readline(len(_HEADER)) != _HEADER:
                cache.clear()
                return cache
            at = len(_HEADER)
            for line in f:
                key, record, digest = cache._parse(line)
                if _digest(key, record) != digest:
                    raise _Mismatch
                cache._lines[key] = (at, len(line))
                at += len(line)
        return cache

    def _parse(self, line: bytes) -> tuple[str, TextRecord, str]:
        key, model, sents, coined, start, stop, digest = json.loads(line)
        assert self._files is not None
        _, tokens_fd, data = self._files
        size = (stop - start) * _TOKEN_BYTES
        raw = os.pread(tokens_fd, size, data + start * _TOKEN_BYTES)
        if stop < start or len(raw) != size:
            raise ValueError(f"token rows {start}:{stop} are not in {TOKENS}")
        tokens = np.frombuffer(bytearray(raw), dtype=np.int32).reshape(-1, 2)
        record = TextRecord([tuple(m) for m in model], [tuple(s) for s in sents],
                            [tuple(c) for c in coined], tokens)
        return key, record, digest

    def __getitem__(self, key: str) -> TextRecord:
        if key in self._added:
            return self._added[key]
        at, length = self._lines[key]
        assert self._files is not None
        return self._parse(os.pread(self._files[0], length, at))[1]

    def __setitem__(self, key: str, record: TextRecord) -> None:
        self._lines.pop(key, None)
        self._added[key] = record

    def __delitem__(self, key: str) -> None:
        if key in self._added:
            del self._added[key]
        else:
            del self._lines[key]

    def __contains__(self, key: object) -> bool:
        return key in self._added or key in self._lines  # (without reading the record)

    def __iter__(self) -> Iterator[str]:
        yield from self._lines
        yield from self._added

    def __len__(self) -> int:
        return len(self._lines) + len(self._added)

    def clear(self) -> None:
        """Forget every record, and close the files."""
        self._added.clear()
        self._lines.clear()
        if self._closer is not None:
            self._closer()
        self._files = self._closer = None


def _close(*fds: int) -> None:
    for fd in fds:
        os.close(fd)


def read(out: Path) -> TextCache:
    """The records an earlier build kept in ``out`` (empty if none, stale or unreadable).

    Each record carries a hash of what it holds: a cache that is valid JSON but holds
    something else (edited spans, token bounds moved) is dropped as a whole, with a note on
    stderr, and every text is extracted again. Only where each record is stays in memory.
    """
    try:
        return TextCache._of(out)
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return TextCache()
    except _Mismatch:
        print(f"kg: note: {Messages.CACHE_MISMATCH.format(path=out / CACHE)}", file=sys.stderr,
              flush=True)
        return TextCache()


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

    Written one record at a time, each read once (``records`` may read each one from a
    file when asked for it, as extraction's :class:`~extractors.span_file.SpanFile` and
    :class:`TextCache` do): nothing of the whole cache is held at once.
    """
    with open(out / TOKENS, "wb") as tokens, open(out / CACHE, "w", encoding="utf-8") as f:
        # each record is read once: its rows go after a header that says 0 rows, which
        # is then written again with their number (np.save's header, padded to 64 bytes:
        # the same length for any number of rows)
        empty = _tokens_header(0)
        tokens.write(empty)
        f.write(_HEADER.decode())
        start = 0
        for key in sorted(records):
            r = records[key]
            rows = np.ascontiguousarray(r.tokens, dtype=np.int32)
            tokens.write(rows.tobytes())
            line = [key, r.model, r.sents, r.coined, start, start + len(rows), _digest(key, r)]
            f.write(json.dumps(line, separators=(",", ":")) + "\n")
            start += len(rows)
        header = _tokens_header(start)
        if len(header) != len(empty):
            raise ValueError(f"{start} token rows: a longer .npy header")
        tokens.seek(0)
        tokens.write(header)


def _tokens_header(rows: int) -> bytes:
    """The ``.npy`` header of an ``(rows, 2)`` int32 array."""
    f = io.BytesIO()
    np.lib.format.write_array_header_1_0(f, {
        "descr": np.lib.format.dtype_to_descr(np.dtype(np.int32)),
        "fortran_order": False, "shape": (rows, 2)})
    return f.getvalue()


#: Bytes of a cache key's digest (SHA-1).
_DIGEST = 20


class CacheKeys(Sequence[str]):
    """The cache keys of a corpus's texts, in order: each its digest's hex string when read.

    A build computes a key per text before extracting and holds them until the cache is
    written: 20 bytes a text here, where a list of hex strings took ~97 (issue 17).
    Membership is a binary search in the sorted digests (sorted when first asked).

    >>> keys = CacheKeys([bytes(range(20)), bytes(20)])
    >>> len(keys), keys[1], "00" * 20 in keys, "ff" * 20 in keys, list(keys)[0][:6]
    (2, '0000000000000000000000000000000000000000', True, False, '000102')
    """

    def __init__(self, digests: Iterable[bytes] = ()) -> None:
        self._digests = bytearray()
        for d in digests:
            if len(d) != _DIGEST:
                raise ValueError(f"a cache key's digest is {_DIGEST} bytes, not {len(d)}")
            self._digests += d
        self._sorted: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self._digests) // _DIGEST

    @overload
    def __getitem__(self, i: int) -> str: ...
    @overload
    def __getitem__(self, i: slice) -> list[str]: ...

    def __getitem__(self, i: int | slice) -> str | list[str]:
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        i = range(len(self))[i]
        return self._digests[_DIGEST * i:_DIGEST * (i + 1)].hex()

    def __contains__(self, key: object) -> bool:
        if not isinstance(key, str) or len(key) != 2 * _DIGEST:
            return False
        try:
            digest = bytes.fromhex(key)
        except ValueError:
            return False
        if self._sorted is None:
            self._sorted = np.sort(np.frombuffer(bytes(self._digests), dtype=f"S{_DIGEST}"))
        at = int(np.searchsorted(self._sorted, digest))
        # (an item of numpy's S dtype comes without its trailing NUL bytes)
        return at < len(self._sorted) and self._sorted[at].ljust(_DIGEST, b"\0") == digest

    def clear(self) -> None:
        """Forget every key."""
        self._digests = bytearray()
        self._sorted = None
