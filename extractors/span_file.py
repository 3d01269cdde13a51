"""Every text's :class:`~extractors.consolidate.DocSpans` in a temporary file, read one at a time.

Extraction finds ~10 KB of spans, sentences and token bounds per paper (as Python lists of
tuples); consolidation reads them in a few passes (resolve, propagation, name mentions,
relations), one text after another. Held in memory they were the largest thing the
extraction process kept per paper: here each text's are pickled to an unnamed temporary
file as they arrive, and each pass unpickles one text (or one chunk) at a time. What stays
in memory per text is where its pieces are in the file (a few integers).

A text too long for one pipeline pass comes in pieces (:func:`~extractors.pipeline.chunks`):
its pieces are read back together, as one :class:`DocSpans` of the whole field.

Examples
--------
>>> import numpy as np
>>> from extractors.consolidate import DocSpans
>>> spans = SpanFile(2)  # or: with SpanFile(2) as spans
>>> spans.put(1, DocSpans("p", "abstract", [(0, 9)], [], [(0, 5, "task")], [],
...                       np.array([[0, 5], [6, 9]], np.int32)))
>>> spans.put(0, DocSpans("p", "title", [(0, 4)], [(0, 4, "c1", "phrase")], [], []))
>>> texts = spans.texts([(0, 1), (1, 2)], [("p", "title"), ("p", "abstract")])
>>> [(ds.field, ds.model) for ds in texts]
[('title', []), ('abstract', [(0, 5, 'task')])]
>>> texts[1].tokens.tolist()
[[0, 5], [6, 9]]
>>> spans.close()
"""

from __future__ import annotations

import os
import pickle
import tempfile
from collections.abc import Iterator, Sequence
from typing import overload

import numpy as np

from extractors.consolidate import DocSpans

__all__ = ["SpanFile", "Texts"]


class SpanFile:
    """The :class:`DocSpans` of ``n`` texts (pieces of fields), put in any order by index.

    The file is unnamed (deleted by the system when closed, or when the process ends) and
    lives in the system's temporary folder (``TMPDIR``).
    """

    def __init__(self, n: int) -> None:
        # closed by close() (or the with block): it lives as long as this object
        self._file = tempfile.TemporaryFile(prefix="kg-spans-")  # noqa: SIM115
        self._end = 0
        # where each piece is: its offset and length in the file (-1: not put yet)
        self._offset = np.full(n, -1, dtype=np.int64)
        self._length = np.zeros(n, dtype=np.int64)
        self._flushed = True
        # the few strings spans carry (concept ids, kinds, types): one object each, as they
        # were once read, not a copy per text (mentions and candidates keep them)
        self._strings: dict[str, str] = {}

    def put(self, i: int, ds: DocSpans) -> None:
        """Keep ``ds`` as piece ``i``."""
        blob = pickle.dumps((ds.sents, ds.lexicon, ds.model, ds.coined, ds.tokens),
                            protocol=pickle.HIGHEST_PROTOCOL)
        self._file.write(blob)
        self._offset[i], self._length[i] = self._end, len(blob)
        self._end += len(blob)
        self._flushed = False

    def get(self, i: int, paper: str, field: str) -> DocSpans:
        """Piece ``i``, as it was put (new lists at each call), of the text ``paper``'s
        ``field`` (not kept in the file: the caller's strings, which the mentions share)."""
        if not self._flushed:
            self._file.flush()
            self._flushed = True
        offset = int(self._offset[i])
        if offset < 0:
            raise KeyError(i)
        blob = os.pread(self._file.fileno(), int(self._length[i]), offset)
        sents, lexicon, model, coined, tokens = pickle.loads(blob)
        one = self._strings.setdefault
        lexicon = [(a, b, one(c, c), one(k, k)) for a, b, c, k in lexicon]
        model = [(a, b, one(t, t)) for a, b, t in model]
        coined = [(a, b, one(t, t)) for a, b, t in coined]
        return DocSpans(paper=paper, field=field, sents=sents, lexicon=lexicon, model=model,
                        coined=coined, tokens=tokens)

    def texts(self, ranges: Sequence[tuple[int, int]],
              fields: Sequence[tuple[str, str]]) -> Texts:
        """The texts made of the pieces ``range(a, b)`` for each ``(a, b)`` of ``ranges``,
        each of ``(paper, field)`` of ``fields``."""
        return Texts(self, ranges, fields)

    def close(self) -> None:
        """Delete the file."""
        self._file.close()

    def __enter__(self) -> SpanFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class Texts(Sequence[DocSpans]):
    """Whole texts of a :class:`SpanFile`, each read (and its pieces joined) when asked for.

    A sequence like the list of :class:`DocSpans` it replaces: indexing, slicing (another
    :class:`Texts`), ``len`` and iteration, which reads one text at a time.
    """

    def __init__(self, spans: SpanFile, ranges: Sequence[tuple[int, int]] | np.ndarray,
                 fields: Sequence[tuple[str, str]]) -> None:
        self._spans = spans
        self._ranges = np.asarray(ranges, dtype=np.int64).reshape(-1, 2)
        self._fields = fields

    def __len__(self) -> int:
        return len(self._ranges)

    @overload
    def __getitem__(self, k: int) -> DocSpans: ...

    @overload
    def __getitem__(self, k: slice) -> Texts: ...

    def __getitem__(self, k: int | slice) -> DocSpans | Texts:
        if isinstance(k, slice):
            return Texts(self._spans, self._ranges[k], self._fields[k])
        a, b = (int(x) for x in self._ranges[k])
        paper, field = self._fields[k]
        ds = self._spans.get(a, paper, field)
        for i in range(a + 1, b):  # the later pieces of a huge field
            more = self._spans.get(i, paper, field)
            ds.sents += more.sents
            ds.lexicon += more.lexicon
            ds.model += more.model
            ds.coined += more.coined
            assert ds.tokens is not None and more.tokens is not None
            ds.tokens = np.concatenate([ds.tokens, more.tokens])
        return ds

    def __iter__(self) -> Iterator[DocSpans]:
        for k in range(len(self)):
            yield self[k]

    def subset(self, keep: Sequence[int]) -> Texts:
        """The texts at positions ``keep``, in that order."""
        return Texts(self._spans, self._ranges[np.asarray(keep, dtype=np.int64)],
                     [self._fields[k] for k in keep])
