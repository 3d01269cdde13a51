"""The texts extraction reads: each paper's fields, markup masked, huge fields in pieces.

:func:`field_texts` yields them one after another; :class:`FieldTexts` is the same texts as
a sequence that holds none of them. It keeps where each text is (its paper, field, offset
and length: 13 bytes a text) and reads it from its paper when asked for, so that a corpus
whose papers keep their texts on disk (:class:`~kg.core.paper_file.StoredPaper`) does not
have them all in memory again while it is extracted (issue 17).

Examples
--------
>>> from kg.core.model import Paper
>>> papers = [Paper("p1", "Graph nets", r"We bound $\\epsilon$ in GNNs.")]
>>> texts = FieldTexts(papers)
>>> len(texts), texts[1]
(2, ('We bound            in GNNs.', ('p1', 'abstract', 0)))
>>> list(texts) == list(field_texts(papers))
True
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator, Sequence
from typing import overload

import numpy as np

from extractors.markup import mask_markup
from kg.core.model import FIELDS, Paper

__all__ = ["CHUNK_CHARS", "FieldTexts", "TextFields", "chunks", "field_texts"]

#: Longest piece of text given to spaCy at once (the span model's memory grows with it).
CHUNK_CHARS = 100_000

#: A text and where it is: ``(piece, (paper id, field, offset in the field))``.
Text = tuple[str, tuple[str, str, int]]


def field_texts(papers: Iterable[Paper]) -> Iterator[Text]:
    """(masked text, (paper id, field, offset)) for every field; huge fields come in chunks."""
    for p in papers:
        for f in p.fields:
            text = p.text(f)
            if text.strip():
                masked = mask_markup(text)
                for offset, chunk in chunks(masked):
                    yield chunk, (p.id, f, offset)


def chunks(text: str, size: int = CHUNK_CHARS) -> Iterator[tuple[int, str]]:
    """``(offset, piece)`` of ``text`` in pieces of at most ``size`` characters.

    Pieces end after a sentence (". ") or at least a space where possible, so that
    no term is cut, and ``text[offset:offset + len(piece)] == piece``.

    >>> list(chunks("One two. Three four.", size=10))
    [(0, 'One two. '), (9, 'Three '), (15, 'four.')]
    """
    start = 0
    while len(text) - start > size:
        cut = text.rfind(". ", start, start + size)
        cut = cut + 2 if cut > start else text.rfind(" ", start, start + size) + 1
        if cut <= start:
            cut = start + size
        yield start, text[start:cut]
        start = cut
    yield start, text[start:]


class FieldTexts(Sequence[Text]):
    """:func:`field_texts` of ``papers`` as a sequence, each text read from its paper when
    asked for (the field last asked for is kept masked: a field's pieces and a text's
    several reads come one after another).

    ``papers`` is read, not copied: a paper replaced in it by an equal one (the same
    texts) is read from then on.
    """

    def __init__(self, papers: Sequence[Paper]) -> None:
        self._papers = papers
        self._paper = array("i")  # the paper's index in ``papers``
        self._field = bytearray()  # the field's index in FIELDS
        self._offset = array("i")  # fields are at most kg.core.readers.MAX_TEXT_CHARS
        self._length = array("i")
        for n, p in enumerate(papers):
            for f in p.fields:
                text = p.text(f)
                if text.strip():
                    for offset, piece in chunks(mask_markup(text)):
                        self._paper.append(n)
                        self._field.append(FIELDS.index(f))
                        self._offset.append(offset)
                        self._length.append(len(piece))
        self._last: tuple[int, int, str] = (-1, -1, "")

    def __len__(self) -> int:
        return len(self._paper)

    @overload
    def __getitem__(self, i: int) -> Text: ...
    @overload
    def __getitem__(self, i: slice) -> list[Text]: ...

    def __getitem__(self, i: int | slice) -> Text | list[Text]:
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        n, f, offset = self._paper[i], self._field[i], self._offset[i]
        paper = self._papers[n]
        if self._last[:2] != (n, f):
            self._last = (n, f, mask_markup(paper.text(FIELDS[f])))
        masked = self._last[2]
        # a whole field is the masked field itself (sliced, the same object)
        return masked[offset:offset + self._length[i]], (paper.id, FIELDS[f], offset)

    def where(self, i: int) -> tuple[str, str, int]:
        """``self[i][1]``, without reading the text: (paper id, field, offset)."""
        return self._papers[self._paper[i]].id, FIELDS[self._field[i]], self._offset[i]

    def whole_fields(self) -> tuple[np.ndarray, TextFields]:
        """Each whole field's pieces and name: an ``(n, 2)`` array of ``[a, b)`` bounds in
        this sequence, and each field's ``(paper id, field)``.

        A tuple per field of each (~180 bytes a field, held through consolidation) was the
        largest thing extraction's bookkeeping kept per paper (issue 17).

        >>> from kg.core.model import Paper
        >>> texts = FieldTexts([Paper("p1", "Graphs", "x. " * 40_000), Paper("p2", "", "y")])
        >>> bounds, fields = texts.whole_fields()
        >>> bounds.tolist(), list(fields)
        ([[0, 1], [1, 3], [3, 4]], [('p1', 'title'), ('p1', 'abstract'), ('p2', 'abstract')])
        """
        starts = [i for i in range(len(self)) if i == 0 or self._paper[i] != self._paper[i - 1]
                  or self._field[i] != self._field[i - 1]]
        bounds = np.empty((len(starts), 2), dtype=np.int64)
        bounds[:, 0] = starts
        bounds[:-1, 1] = starts[1:]
        if len(starts):
            bounds[-1, 1] = len(self)
        return bounds, TextFields(self._papers, array("i", (self._paper[i] for i in starts)),
                                  bytes(self._field[i] for i in starts))

    @property
    def pieces(self) -> Sequence[str]:
        """The texts alone, as a sequence read the same way."""
        return _Pieces(self)

    def clear(self) -> None:
        """Forget every text (the sequence is then empty)."""
        for column in (self._paper, self._offset, self._length):
            del column[:]
        self._field.clear()
        self._last = (-1, -1, "")


class _Pieces(Sequence[str]):
    def __init__(self, texts: FieldTexts) -> None:
        self._texts = texts

    def __len__(self) -> int:
        return len(self._texts)

    @overload
    def __getitem__(self, i: int) -> str: ...
    @overload
    def __getitem__(self, i: slice) -> list[str]: ...

    def __getitem__(self, i: int | slice) -> str | list[str]:
        if isinstance(i, slice):
            return [t for t, _ in self._texts[i]]
        return self._texts[i][0]


class TextFields(Sequence[tuple[str, str]]):
    """``(paper id, field)`` of each of a corpus's texts: 5 bytes a text (the paper's index
    in ``papers``, the field's in :data:`~kg.core.model.FIELDS`); see
    :meth:`FieldTexts.whole_fields`."""

    def __init__(self, papers: Sequence[Paper], paper: array, field: bytes) -> None:
        self._papers = papers
        self._paper = paper
        self._field = field

    def __len__(self) -> int:
        return len(self._paper)

    @overload
    def __getitem__(self, i: int) -> tuple[str, str]: ...
    @overload
    def __getitem__(self, i: slice) -> TextFields: ...

    def __getitem__(self, i: int | slice) -> tuple[str, str] | TextFields:
        if isinstance(i, slice):
            return TextFields(self._papers, self._paper[i], self._field[i])
        return self._papers[self._paper[i]].id, FIELDS[self._field[i]]
