"""Every text's relations in a temporary file, read back a field at a time in sorted order.

Relations are found with extraction, in the workers (``extractors.pipeline``), and come back
as Python objects (~11 blocks each, a sentence copy per relation): held until consolidation
ended, they were the largest single thing the extraction process kept per paper (~8.5 KB at
5,000 papers). Here each text's are pickled (as rows of field values) to an unnamed
temporary file as they arrive; what stays in memory per text is where they are in the file.

:class:`Relations` reads them back as a sequence in
:func:`~kg.core.model.sorted_relations` order without holding them all: the texts in
(paper, title first) order, each text's relations sorted on their own. That is the order of
sorting them all at once, because the sort key starts with the paper and the field, and
each text is one field of one paper (its relations carry that paper and field); ties keep
the order a text's relations were put in, as a stable sort of them all does. Each pass
(``for r in relations``) reads the file again, one text at a time, and may link each
relation to its concepts as it goes (:meth:`Relations.linked`).

Examples
--------
>>> from kg.core.model import Relation
>>> file = RelationFile(3)
>>> r = Relation("b", "used-for", "abstract", 4, 8, "GNNs", 0, 3, "RL", "RL GNNs.", "model")
>>> t = Relation("a", "used-for", "title", 0, 2, "x", 3, 4, "y", "x y", "patterns")
>>> file.put(0, [r])
>>> file.put(2, [t])
>>> file.put(1, [])
>>> rels = file.relations([0, 1, 2], [("b", "abstract"), ("b", "title"), ("a", "title")])
>>> [(x.paper, x.field) for x in rels], len(rels)
([('a', 'title'), ('b', 'abstract')], 2)
>>> rels[1] == r
True
>>> file.close()
"""

from __future__ import annotations

import os
import pickle
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import fields as dataclass_fields
from itertools import islice
from typing import overload

import numpy as np

from kg.core.model import Relation, sorted_relations

__all__ = ["Link", "RelationFile", "Relations"]

#: Relations in :func:`~kg.core.model.sorted_relations` order → the same, each linked to
#: its concepts (:func:`extractors.relation_links.link_sorted`)
Link = Callable[[Iterable[Relation]], Iterator[Relation]]

_NAMES = tuple(f.name for f in dataclass_fields(Relation))


class RelationFile:
    """The relations of ``n`` texts, put in any order by index (each text once).

    The file is unnamed (deleted by the system when closed, or when the process ends) and
    lives in the system's temporary folder (``TMPDIR``). It is closed by :meth:`close`, or
    when this object is collected: a graph whose :class:`Relations` read it keeps it open.
    """

    def __init__(self, n: int) -> None:
        #: How many texts the file is for (their indices are ``0`` to ``n - 1``).
        self.n = n
        # closed by close() or __del__: it lives as long as what reads it
        self._file = tempfile.TemporaryFile(prefix="kg-relations-")  # noqa: SIM115
        self._end = 0
        # where each text's relations are, and how many (-1: not put)
        self._offset = np.full(n, -1, dtype=np.int64)
        self._length = np.zeros(n, dtype=np.int64)
        self._count = np.zeros(n, dtype=np.int64)
        self._flushed = True

    def put(self, i: int, relations: Sequence[Relation]) -> None:
        """Keep ``relations`` (those of one field of one paper, maybe none) as text ``i``'s."""
        blob = pickle.dumps([tuple([getattr(r, n) for n in _NAMES]) for r in relations],
                            protocol=pickle.HIGHEST_PROTOCOL) if relations else b""
        self._file.write(blob)
        self._offset[i], self._length[i] = self._end, len(blob)
        self._count[i] = len(relations)
        self._end += len(blob)
        self._flushed = False

    def has(self, i: int) -> bool:
        """Whether text ``i``'s relations were put (maybe none)."""
        return bool(self._offset[i] >= 0)

    def count(self, i: int) -> int:
        """How many relations text ``i`` has (0 if none were put)."""
        return int(self._count[i])

    def get(self, i: int) -> list[Relation]:
        """Text ``i``'s relations, in the order they were put (new objects at each call)."""
        if self._offset[i] < 0:
            raise KeyError(i)
        if not self._length[i]:
            return []
        if not self._flushed:
            self._file.flush()
            self._flushed = True
        blob = os.pread(self._file.fileno(), int(self._length[i]), int(self._offset[i]))
        return [Relation(*row) for row in pickle.loads(blob)]

    def relations(self, texts: Sequence[int], fields: Sequence[tuple[str, str]]) -> Relations:
        """The relations of the texts ``texts`` (each ``(paper, field)`` of ``fields``), as
        one sequence in :func:`~kg.core.model.sorted_relations` order."""
        # the texts in (paper, title first) order, as sorted_relations orders their
        # relations; a stable sort, as sorting the relations themselves is
        order = sorted(range(len(texts)), key=lambda k: (fields[k][0], fields[k][1] != "title"))
        return Relations(self, [texts[k] for k in order if self.count(texts[k])])

    def close(self) -> None:
        """Delete the file."""
        self._file.close()

    def __del__(self) -> None:
        # a graph's Relations may outlive the build step that made the file
        file = getattr(self, "_file", None)
        if file is not None:
            file.close()

    def __enter__(self) -> RelationFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class Relations(Sequence[Relation]):
    """Relations of a :class:`RelationFile` in :func:`~kg.core.model.sorted_relations`
    order, read a text at a time at each pass (nothing is kept between passes).

    A sequence like the list it stands for (``len``, iteration, indexing; a slice is a
    list). With ``link``, each relation comes linked to its concepts.
    """

    def __init__(self, file: RelationFile, texts: Sequence[int] | np.ndarray,
                 link: Link | None = None) -> None:
        self._file = file
        self._texts = np.asarray(texts, dtype=np.int64)
        # relations before each text's (for indexing) and in all
        counts = np.array([file.count(int(i)) for i in self._texts], dtype=np.int64)
        self._before = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        self._link = link

    def linked(self, link: Link) -> Relations:
        """These relations, each linked by ``link`` as it is read (the same file)."""
        return Relations(self._file, self._texts, link)

    def linked_once(self, link: Link) -> Relations:
        """These relations linked by ``link`` once, into a file of their own: a pass over
        the result reads them linked, as :meth:`linked` gives them, without linking them
        again.

        A build's extraction process reads its relations several times once they are
        linked (the page, the spill file's check of their order, its relation edges,
        extractor names and rows): linking them at each pass was most of the time it took
        to write the spill file. This file replaces the one read here, which goes once
        nothing reads it.
        """
        out = RelationFile(self._file.n)
        stream = iter(self.linked(link))
        # linking keeps each relation where it is (one out for one in): each text's are
        # the next ones of the stream
        for i, n in zip(self._texts.tolist(), np.diff(self._before).tolist(), strict=True):
            out.put(i, list(islice(stream, n)))
        return Relations(out, self._texts)

    def _read(self, texts: Iterable[int]) -> Iterator[Relation]:
        rows = (r for i in texts for r in sorted_relations(self._file.get(int(i))))
        return rows if self._link is None else self._link(rows)

    def __len__(self) -> int:
        return int(self._before[-1])

    def __iter__(self) -> Iterator[Relation]:
        return self._read(self._texts)

    @overload
    def __getitem__(self, k: int) -> Relation: ...

    @overload
    def __getitem__(self, k: slice) -> list[Relation]: ...

    def __getitem__(self, k: int | slice) -> Relation | list[Relation]:
        if isinstance(k, slice):
            return list(self)[k]
        n = len(self)
        if k < 0:
            k += n
        if not 0 <= k < n:
            raise IndexError(k)
        t = int(np.searchsorted(self._before, k, side="right")) - 1
        return next(islice(self._read(self._texts[t:t + 1]), k - int(self._before[t]), None))
