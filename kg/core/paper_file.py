"""Papers whose titles and abstracts are in a temporary file, read back when asked for.

A build's extraction process holds every paper of the corpus from the moment it reads them
until the spill file is written, but after extraction it reads their texts only a paper at a
time (consolidation's passes go text by text, the spill file paper by paper) and the page
reads the few papers it shows. The titles and abstracts were, after the mentions, the largest
thing it kept per paper (~1.7 KB each, issue 17). :meth:`PaperFile.add` writes a paper's title
and abstract to an unnamed temporary file and gives back a :class:`StoredPaper`: the same
paper, every field as it was, whose ``title`` and ``abstract`` are read from the file (as
UTF-8) when asked for; the last few papers read are kept, since passes ask for the same paper
many times in a row. What stays in memory per paper is its other fields and where its texts
are (three integers).

A stored paper pickles (and copies) as a plain :class:`~kg.core.model.Paper` holding its
texts: what crosses to another process does not depend on this process's file.

Examples
--------
>>> from kg.core.model import Paper
>>> papers = PaperFile()
>>> p = papers.add(Paper("p1", "Graph nets", "GNNs (graph neural networks) généralisent."))
>>> p.abstract, p.text("title"), p.id
('GNNs (graph neural networks) généralisent.', 'Graph nets', 'p1')
>>> import pickle
>>> type(pickle.loads(pickle.dumps(p))).__name__
'Paper'
>>> p == Paper("p1", "Graph nets", "GNNs (graph neural networks) généralisent.")
True
"""

from __future__ import annotations

import os
import tempfile
import weakref
from array import array
from dataclasses import fields as dataclass_fields

from kg.core.model import Paper

__all__ = ["PaperFile", "StoredPaper"]

#: Papers whose texts are kept once read (a pass reads one paper's texts many times in a
#: row, and the spill file's id order may interleave a few).
KEPT_READS = 64
#: The fields copied into a stored paper as they are (all but the texts).
_OTHER_FIELDS = tuple(f.name for f in dataclass_fields(Paper)
                      if f.name not in ("title", "abstract"))


class PaperFile:
    """The titles and abstracts of papers, in an unnamed temporary file.

    The file lives in the system's temporary folder (``TMPDIR``) and is deleted when this
    object and every paper read from it are gone (or the process ends).
    """

    def __init__(self) -> None:
        self._file = tempfile.TemporaryFile(prefix="kg-papers-")  # noqa: SIM115
        # closed with the last reference to this object (each stored paper holds one)
        weakref.finalize(self, self._file.close)
        self._end = 0
        # per paper: where its title starts, where its abstract starts, where it ends
        self._bounds = array("q")
        self._flushed = True
        self._kept: dict[int, tuple[str, str]] = {}

    def add(self, paper: Paper) -> StoredPaper:
        """Write ``paper``'s title and abstract to the file; the same paper, read from it."""
        title = paper.title.encode("utf-8", "surrogatepass")
        abstract = paper.abstract.encode("utf-8", "surrogatepass")
        self._file.write(title)
        self._file.write(abstract)
        row = len(self._bounds) // 3
        self._bounds.extend((self._end, self._end + len(title),
                             self._end + len(title) + len(abstract)))
        self._end += len(title) + len(abstract)
        self._flushed = False
        return StoredPaper.of(paper, self, row)

    def texts(self, row: int) -> tuple[str, str]:
        """The title and abstract of the ``row``-th paper added."""
        kept = self._kept.get(row)
        if kept is not None:
            return kept
        if not self._flushed:
            self._file.flush()
            self._flushed = True
        a, b, c = self._bounds[3 * row: 3 * row + 3]
        data = os.pread(self._file.fileno(), c - a, a)
        kept = (data[:b - a].decode("utf-8", "surrogatepass"),
                data[b - a:].decode("utf-8", "surrogatepass"))
        if len(self._kept) >= KEPT_READS:
            self._kept.pop(next(iter(self._kept)), None)  # the oldest read
        self._kept[row] = kept
        return kept

    def __len__(self) -> int:
        return len(self._bounds) // 3


class StoredPaper(Paper):
    """A :class:`~kg.core.model.Paper` whose title and abstract are in a :class:`PaperFile`.

    Made by :meth:`PaperFile.add`; read-only in its texts (setting one raises
    ``AttributeError``). Equal to the plain paper with the same fields; a copy, a pickle or
    ``dataclasses.replace`` of it is a plain paper.
    """

    __slots__ = ("_file", "_row")
    _file: PaperFile
    _row: int

    def __new__(cls, *args: object, **kwargs: object) -> Paper:  # type: ignore[misc]
        # what makes a paper from its fields (dataclasses.replace, a subclass's copy) makes
        # a plain one: only PaperFile.add makes stored ones (with :meth:`of`)
        return Paper(*args, **kwargs)  # type: ignore[arg-type]

    @classmethod
    def of(cls, paper: Paper, file: PaperFile, row: int) -> StoredPaper:
        """``paper``, its texts read from ``file``, where they are the ``row``-th added."""
        self = object.__new__(cls)
        for name in _OTHER_FIELDS:
            setattr(self, name, getattr(paper, name))
        self._file = file
        self._row = row
        return self

    @property
    def title(self) -> str:
        return self._file.texts(self._row)[0]

    @title.setter
    def title(self, value: str) -> None:
        raise AttributeError("a stored paper's title cannot be changed")

    @property
    def abstract(self) -> str:
        return self._file.texts(self._row)[1]

    @abstract.setter
    def abstract(self, value: str) -> None:
        raise AttributeError("a stored paper's abstract cannot be changed")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Paper):
            return NotImplemented
        return all(getattr(self, f.name) == getattr(other, f.name)
                   for f in dataclass_fields(Paper))

    __hash__ = None  # type: ignore[assignment]  # as Paper's (a mutable dataclass)

    def __reduce__(self) -> tuple[type[Paper], tuple]:
        return Paper, tuple(getattr(self, f.name) for f in dataclass_fields(Paper))
