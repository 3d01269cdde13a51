"""Corpus readers: plain text, JSON Lines and CSV, all yielding :class:`~kg.core.model.Paper`.

Readers are registered by file suffix in :data:`READERS`; :func:`read_corpus`
picks one per file (or the one named by ``input_format``), checks every record and
stops on the first bad one with an :class:`~kg.core.errors.InputError` naming the
file and line (or, with ``on_error="skip"``, records it and goes on). The input
``-`` is standard input, read as :data:`STDIN_NAME` in ids and messages; its format
is ``input_format``, else sniffed (:func:`sniff_format`).
"""

from __future__ import annotations

import codecs
import contextlib
import csv
import dataclasses
import io
import json
import os
import re
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from kg.core.errors import InputError, Messages
from kg.core.model import Paper
from kg.core.paper_file import PaperFile

__all__ = [
    "FIELDS", "INPUT_FORMATS", "MAX_TEXT_CHARS", "READERS", "YEARS", "ReadReport", "Reader",
    "STDIN", "STDIN_NAME", "TITLE_MAX", "derive_title", "input_name", "paper_from_record",
    "read_corpus", "read_csv", "read_jsonl", "read_records", "read_text", "sniff_format",
    "truncate_text",
]

TITLE_MAX = 100
#: The longest title or abstract read (characters); longer ones are cut there, with a
#: warning naming the file and record. Extraction takes time and memory in proportion to
#: a text's length; at this length a build of one such text stays within about 30 s and
#: 0.5 GB more memory than a build of a few ordinary abstracts (README, "Limits").
MAX_TEXT_CHARS = 500_000
#: The years a record may give (``year`` is written as an ``xsd:gYear`` of four digits).
YEARS = (1000, 2999)
#: The fields a record may give: a JSON object or CSV header naming one twice is refused.
FIELDS = ("id", "title", "abstract", "keywords", "venue", "year", "url")
#: One object per year: a corpus's papers share a few years (an int each was ~28 bytes a
#: paper, issue 17)
_YEAR_OBJECTS: dict[int, int] = {}
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9(\[])")


def derive_title(text: str, limit: int = TITLE_MAX) -> str:
    """A short display title from the first sentence of ``text``.

    >>> derive_title("We study MinHash. It is fast.")
    'We study MinHash'
    """
    first = _SENTENCE_END.split(text.strip(), maxsplit=1)[0].strip()
    first = re.sub(r"\s+", " ", first).rstrip(".!?")
    if len(first) <= limit:
        return first
    cut = first[:limit].rsplit(" ", 1)[0].rstrip(",;:")
    return cut + "…"


def _decode(path: Path, data: bytes | None = None) -> str:
    try:
        data = path.read_bytes() if data is None else data
    except FileNotFoundError:
        raise InputError(str(path), None, Messages.NO_SUCH_FILE) from None
    except IsADirectoryError:
        raise InputError(str(path), None, "is a folder, not a file") from None
    except OSError as e:  # no permission, a symlink loop, a name too long …
        raise InputError(str(path), None, Messages.UNREADABLE.format(
            detail=e.strerror or type(e).__name__)) from None
    if not data.strip():
        raise InputError(str(path), None, Messages.EMPTY_FILE)
    if b"\x00" in data[:65536]:
        raise InputError(str(path), None, Messages.BINARY)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        raise InputError(
            str(path), f"line {line}",
            Messages.NOT_UTF8.format(byte=f"0x{data[e.start]:02x}", offset=e.start),
        ) from None


def _text_field(rec: dict, name: str, path: Path, where: str, *, required: bool) -> str:
    value = rec.get(name)
    if value is None:
        if required:
            raise InputError(str(path), where, Messages.MISSING_FIELD.format(field=name))
        return ""
    if isinstance(value, (int, float)) and not isinstance(value, bool) and name == "id":
        value = str(value)
    if not isinstance(value, str):
        raise InputError(str(path), where, Messages.BAD_FIELD_TYPE.format(
            field=name, expected="a string", got=type(value).__name__))
    if required and not value.strip():
        raise InputError(str(path), where, Messages.EMPTY_FIELD.format(field=name))
    _check_surrogates(value, name, path, where)
    return value


def _check_surrogates(value: str, name: str, path: Path, where: str) -> None:
    # JSON may escape half of a UTF-16 pair ("\ud800"); such text cannot be written as UTF-8.
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as e:
        raise InputError(str(path), where, Messages.SURROGATE.format(
            field=name, char=f"U+{ord(value[e.start]):04X}")) from None


def _keywords(value: object, path: Path, where: str) -> list[str]:
    if value is None or value == "":
        return []
    if isinstance(value, str):
        return [k.strip() for k in re.split(r"[;|]", value) if k.strip()]
    if isinstance(value, list) and all(isinstance(k, str) for k in value):
        for k in value:
            _check_surrogates(k, "keywords", path, where)
        return [k.strip() for k in value if k.strip()]
    raise InputError(str(path), where, Messages.BAD_FIELD_TYPE.format(
        field="keywords", expected="a list of strings", got=type(value).__name__))


def _year(value: object, path: Path, where: str) -> int | None:
    if value is None or value == "":
        return None
    year = None
    if not isinstance(value, bool):  # JSON true is not the year 1
        with contextlib.suppress(ValueError):
            year = int(str(value).strip())
    if year is None or not YEARS[0] <= year <= YEARS[1]:
        raise InputError(str(path), where, Messages.BAD_FIELD_TYPE.format(
            field="year", expected=f"a year from {YEARS[0]} to {YEARS[1]}", got=repr(value)))
    return _YEAR_OBJECTS.setdefault(year, year)


def paper_from_record(rec: dict, path: Path, where: str, default_id: str) -> Paper:
    """Validate one JSON/CSV record and turn it into a :class:`Paper`."""
    abstract = _text_field(rec, "abstract", path, where, required=True)
    pid = _text_field(rec, "id", path, where, required=False).strip() or default_id
    title = _text_field(rec, "title", path, where, required=False).strip()
    optional = {k: rec.get(k) or None for k in ("venue", "url")}
    for k, v in optional.items():
        if v is not None and not isinstance(v, str):
            raise InputError(str(path), where, Messages.BAD_FIELD_TYPE.format(
                field=k, expected="a string", got=type(v).__name__))
        if v is not None:
            _check_surrogates(v, k, path, where)
    return Paper(
        id=pid,
        title=title or derive_title(abstract),
        abstract=abstract,
        keywords=_keywords(rec.get("keywords"), path, where),
        # (one string per venue: a corpus names a few, again and again)
        venue=None if optional["venue"] is None else sys.intern(optional["venue"]),
        year=_year(rec.get("year"), path, where),
        url=optional["url"],
        title_derived=not title,
        source=f"{path}:{where}",
    )


def _record(rec: dict, path: Path, where: str, default_id: str) -> Paper | InputError:
    # Record-level problems are yielded, not raised, so a reader can go on past them.
    try:
        return paper_from_record(rec, path, where, default_id)
    except InputError as e:
        return e


def read_text(path: Path, data: bytes | None = None) -> Iterator[Paper | InputError]:
    """Read the plain-text form: a header line, then blank-line-separated abstracts.

    Paper ``N`` (1-based, after the header) of ``NAME.txt`` gets the id ``NAME-N``.
    """
    text = _decode(path, data)
    lines = text.splitlines()
    body_start = 1
    while body_start < len(lines) and not lines[body_start].strip():
        body_start += 1
    n = 0
    para: list[str] = []
    para_line = body_start + 1
    for lineno, line in enumerate([*lines[body_start:], ""], start=body_start + 1):
        if line.strip():
            if not para:
                para_line = lineno
            para.append(line.strip())
            continue
        if para:
            n += 1
            abstract = " ".join(para)
            yield Paper(
                id=f"{path.stem}-{n}", title=derive_title(abstract), abstract=abstract,
                title_derived=True, source=f"{path}:line {para_line}",
            )
            para = []
    if n == 0:
        raise InputError(str(path), None, Messages.HEADER_ONLY)


class _DuplicateKey(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _object(pairs: list[tuple[str, object]]) -> dict:
    """A JSON object, refused if it names a field kg reads twice (``json`` keeps the last)."""
    rec = dict(pairs)
    if len(rec) < len(pairs):
        seen: set[str] = set()
        for k, _ in pairs:
            if k in seen and k in FIELDS:
                raise _DuplicateKey(k)
            seen.add(k)
    return rec


#: Bytes read at a time where a file is checked before its records are read.
_BLOCK = 1 << 20


def _checked(path: Path, data: bytes | None = None) -> BinaryIO:
    """``path`` (or ``data``) open for reading, once checked as :func:`_decode` checks it
    (readable, not empty, not binary, UTF-8), a block at a time: a large corpus is not
    held whole, as bytes and as text, while its records are read (issue 17)."""
    try:
        f: BinaryIO = open(path, "rb") if data is None else io.BytesIO(data)  # noqa: SIM115
        if not f.seekable():  # a pipe ("<(zcat corpus.jsonl.gz)"): read once, as a whole
            with f:
                data = f.read()
            f = io.BytesIO(data)
    except OSError:
        _decode(path, data)  # raises the error of a file that cannot be read
        raise
    try:
        decoder = codecs.getincrementaldecoder("utf-8")()
        blank = True
        first = True
        while block := f.read(_BLOCK):
            if first and b"\x00" in block[:65536]:
                raise InputError(str(path), None, Messages.BINARY)
            first = False
            blank = blank and not block.strip()
            decoder.decode(block)
        decoder.decode(b"", final=True)
        if blank:
            raise InputError(str(path), None, Messages.EMPTY_FILE)
        f.seek(0)
        return f
    except (UnicodeDecodeError, OSError):
        f.close()
        _decode(path, data)  # raises the error naming the line and byte, or the file's
        raise
    except BaseException:
        f.close()
        raise


def read_jsonl(path: Path, data: bytes | None = None) -> Iterator[Paper | InputError]:
    """Read JSON Lines: one object per line with ``abstract`` and optional fields."""
    with _checked(path, data) as f:
        # Split on "\n" only (a binary file's lines): str.splitlines() would also cut at
        # U+2028, U+0085 … which JSON allows unescaped inside strings.
        for lineno, raw in enumerate(f, start=1):
            line = raw.decode("utf-8-sig" if lineno == 1 else "utf-8")
            if not line.strip():
                continue
            where = f"line {lineno}"
            try:
                rec = json.loads(line, object_pairs_hook=_object)
            except _DuplicateKey as e:
                yield InputError(str(path), where, Messages.DUPLICATE_FIELD.format(field=e.key))
                continue
            except json.JSONDecodeError as e:
                yield InputError(str(path), where, Messages.BAD_JSON.format(detail=e.msg))
                continue
            except RecursionError:
                yield InputError(str(path), where, Messages.BAD_JSON.format(
                    detail="nested too deeply"))
                continue
            if not isinstance(rec, dict):
                yield InputError(str(path), where, Messages.NOT_OBJECT.format(
                    kind=type(rec).__name__))
                continue
            yield _record(rec, path, where, f"{path.stem}-{lineno}")


def read_csv(path: Path, data: bytes | None = None) -> Iterator[Paper | InputError]:
    """Read CSV with a header row naming ``abstract`` and optional fields."""
    with _checked(path, data) as f:
        size = f.seek(0, os.SEEK_END)
        f.seek(0)
        # long abstracts are fine (a field is at most the file)
        csv.field_size_limit(max(csv.field_size_limit(), size))
        text = io.TextIOWrapper(f, encoding="utf-8-sig", newline="")
        # strict: an unterminated quote is an error, not a field running to the end of the file
        reader = csv.DictReader(text, strict=True)
        yield from _csv_records(reader, path)


def _csv_records(reader: csv.DictReader, path: Path) -> Iterator[Paper | InputError]:
    try:
        fieldnames = reader.fieldnames or []
    except csv.Error as e:
        raise InputError(str(path), "line 1", Messages.BAD_CSV.format(detail=_csv_detail(e))) \
            from None
    header = [h.strip().lower() for h in fieldnames]
    if "abstract" not in header:
        raise InputError(str(path), "line 1", Messages.CSV_COLUMNS.format(
            required="'abstract' (and optionally id, title, keywords, venue, year, url)",
            found=", ".join(repr(h) for h in header) or "nothing"))
    twice = next((h for i, h in enumerate(header) if h in FIELDS and h in header[:i]), None)
    if twice is not None:
        raise InputError(str(path), "line 1", Messages.CSV_DUPLICATE_COLUMN.format(column=twice))
    reader.fieldnames = header
    while True:
        start = reader.line_num + 1  # the line the next record starts on
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as e:  # the csv module stops at its first malformed row
            raise InputError(str(path), f"line {start}",
                             Messages.BAD_CSV.format(detail=_csv_detail(e))) from None
        where = f"line {reader.line_num}"
        if None in row:
            yield InputError(str(path), where, "row has more cells than the header")
            continue
        yield _record(row, path, where, f"{path.stem}-{reader.line_num}")


def _csv_detail(e: csv.Error) -> str:
    if "unexpected end of data" in str(e):
        return "a quoted field that starts in this record is never closed"
    return str(e)


Reader = Callable[[Path, bytes | None], Iterator[Paper | InputError]]

#: The reader of each file suffix.
READERS: dict[str, Reader] = {
    ".txt": read_text,
    ".jsonl": read_jsonl,
    ".ndjson": read_jsonl,
    ".json": read_jsonl,
    ".csv": read_csv,
}
#: The reader of each ``input_format`` name (``--input-format``).
INPUT_FORMATS: dict[str, Reader] = {"txt": read_text, "jsonl": read_jsonl, "csv": read_csv}
#: The input that means standard input.
STDIN = "-"
#: What standard input is called in paper ids (``stdin-3``) and messages.
STDIN_NAME = "stdin"


def sniff_format(data: bytes) -> str:
    """The format of unnamed input: JSON Lines if it starts with ``{``, else plain text.

    CSV is never guessed (a plain-text abstract may contain commas): name it.

    Examples
    --------
    >>> sniff_format(b'\\n  {"abstract": "We study MinHash."}\\n'), sniff_format(b"My corpus\\n")
    ('jsonl', 'txt')
    """
    head = data.lstrip(b"\xef\xbb\xbf \t\r\n")
    return "jsonl" if head.startswith(b"{") else "txt"


@dataclass
class ReadReport:
    """What :func:`read_corpus` read and skipped."""

    papers: list[Paper] = field(default_factory=list)
    skipped: list[InputError] = field(default_factory=list)
    duplicates: int = 0
    #: Records read with a change (a text cut at :data:`MAX_TEXT_CHARS`), one line each.
    warnings: list[InputError] = field(default_factory=list)


def _same(a: Paper, b: Paper) -> bool:
    return (a.title, a.abstract) == (b.title, b.abstract)


def read_corpus(paths: Iterable[str | Path], *, on_error: str = "raise",
                input_format: str | None = None, stdin: BinaryIO | None = None,
                papers_on_disk: bool = False) -> ReadReport:
    """Read every file in ``paths`` into one list of papers with unique ids.

    Parameters
    ----------
    paths : iterable of str or Path
        Corpus files; the reader is chosen by suffix (see :data:`READERS`). ``-``
        (:data:`STDIN`) reads standard input.
    on_error : {"raise", "skip"}
        ``"raise"`` stops at the first bad record; ``"skip"`` records it in
        :attr:`ReadReport.skipped` and goes on (a file that cannot be read at
        all, such as an empty or binary one, is skipped as a whole). Either
        way, finding no paper at all is an error.
    input_format : {"txt", "jsonl", "csv"}, optional
        Read every input in this format (:data:`INPUT_FORMATS`) whatever its suffix;
        by default standard input's format is sniffed (:func:`sniff_format`).
    stdin : binary file, optional
        What ``-`` reads (default: ``sys.stdin.buffer``).
    papers_on_disk : bool
        Put each paper's title and abstract in a temporary file as it is read
        (:class:`~kg.core.paper_file.PaperFile`): the papers are
        :class:`~kg.core.paper_file.StoredPaper` objects, which read them from there when
        asked for. For a caller that reads the texts a paper at a time (a build's
        extraction process): the corpus's texts are not held in memory (issue 17).

    Examples
    --------
    >>> report = read_corpus(["examples/neurips2026-abstracts.txt"])  # doctest: +SKIP
    >>> report.papers[0].id  # doctest: +SKIP
    'neurips2026-abstracts-1'
    """
    paths = list(paths)
    report = ReadReport()
    seen: dict[str, tuple[Paper, str | None]] = {}  # id -> (paper, source as named)
    stored = PaperFile() if papers_on_disk else None
    for raw in paths:
        data = None
        if str(raw) == STDIN:
            path = Path(STDIN_NAME)
            data = (stdin or sys.stdin.buffer).read()
            reader = INPUT_FORMATS[input_format or sniff_format(data)]
        elif input_format:
            path = Path(raw)
            reader = INPUT_FORMATS[input_format]
        else:
            path = Path(raw)
            found = READERS.get(path.suffix.lower())
            if found is None:
                raise InputError(str(path), None,
                                 Messages.UNKNOWN_FORMAT.format(suffix=path.suffix))
            reader = found
        try:
            name = STDIN_NAME if data is not None else str(input_name(path))
            _read_file(reader(path, data), path, seen, report, on_error, name=name,
                       stored=stored)
        except InputError as e:  # the whole file is unreadable (empty, binary …)
            if on_error != "skip":
                raise
            report.skipped.append(e)
    if not report.papers:
        names = ", ".join(str(p) for p in paths)
        if report.skipped:
            raise InputError(names, None, Messages.NO_INPUT_SKIPPED.format(
                n=len(report.skipped), first=report.skipped[0]))
        raise InputError(names, None, Messages.NO_INPUT)
    return report


def read_records(records: Iterable[dict | Paper], *, name: str = "records",
                 on_error: str = "raise") -> ReadReport:
    """Read in-memory records (dicts with JSONL's fields, or :class:`Paper`) like a file.

    Each dict is checked as a JSONL line is; errors name ``name`` and ``record N``
    (1-based), and a record without an ``id`` gets ``NAME-N``. ``on_error`` and
    duplicate ids work as in :func:`read_corpus`.

    Examples
    --------
    >>> report = read_records([{"id": "a", "abstract": "We study graphs."}, {"abstract": "x"}])
    >>> [(p.id, p.title) for p in report.papers]
    [('a', 'We study graphs'), ('records-2', 'x')]
    >>> read_records([{"title": "no abstract"}])
    Traceback (most recent call last):
    ...
    kg.core.errors.InputError: records:record 1: record has no 'abstract'
    """
    path = Path(name)

    def papers() -> Iterator[Paper | InputError]:
        for n, rec in enumerate(records, start=1):
            where = f"record {n}"
            if isinstance(rec, Paper):
                yield rec
            elif isinstance(rec, dict):
                yield _record(rec, path, where, f"{name}-{n}")
            else:
                yield InputError(name, where, Messages.NOT_OBJECT.format(
                    kind=type(rec).__name__))

    report = ReadReport()
    _read_file(papers(), path, {}, report, on_error)
    if not report.papers:
        raise InputError(name, None, Messages.NO_INPUT_SKIPPED.format(
            n=len(report.skipped), first=report.skipped[0]) if report.skipped
            else Messages.NO_INPUT)
    return report


def input_name(path: str | Path) -> Path:
    """``path`` as records name their file (``Paper.source``, messages): relative to the
    current folder, normalised.

    So the same file gives the same ``model.json`` whether it was named ``examples/a.txt``,
    ``./examples/a.txt`` or by its absolute path. Symbolic links are kept as named.

    Examples
    --------
    >>> str(input_name(Path.cwd() / "examples" / ".." / "examples" / "a.txt"))
    'examples/a.txt'
    >>> str(input_name(Path.cwd().parent / "shared" / "a.txt"))
    '../shared/a.txt'
    """
    return Path(os.path.relpath(os.path.abspath(path)))


def _read_file(records: Iterator[Paper | InputError], path: Path,
               seen: dict[str, tuple[Paper, str | None]],
               report: ReadReport, on_error: str, name: str | None = None,
               stored: PaperFile | None = None) -> None:
    """Add the papers of ``records`` to ``report``; messages name ``path`` as given, the
    papers' ``source`` names it as ``name`` (:func:`input_name`); with ``stored``, their
    texts go there."""
    for paper in records:
        if isinstance(paper, InputError):
            if on_error != "skip":
                raise paper
            report.skipped.append(paper)
            continue
        paper = _within_limits(paper, path, report)
        earlier = seen.get(paper.id)
        if earlier is not None:
            first, first_source = earlier
            if _same(first, paper):
                report.duplicates += 1
                continue
            where = paper.source.rsplit(":", 1)[-1] if paper.source else None
            err = InputError(str(path), where,
                             Messages.DUPLICATE_ID.format(id=paper.id, first=first_source))
            if on_error != "skip":
                raise err
            report.skipped.append(err)
            continue
        source = paper.source  # (messages name the file as given)
        if name is not None and source and source.startswith(f"{path}:"):
            paper = dataclasses.replace(paper, source=name + source[len(str(path)):])
        if stored is not None:
            paper = stored.add(paper)
        seen[paper.id] = (paper, source)  # the paper kept: not one holding its texts besides
        report.papers.append(paper)


def _within_limits(paper: Paper, path: Path, report: ReadReport) -> Paper:
    """``paper`` with a title or abstract longer than :data:`MAX_TEXT_CHARS` cut (warned)."""
    texts = {"title": paper.title, "abstract": paper.abstract}
    for name, text in texts.items():
        if len(text) > MAX_TEXT_CHARS:
            texts[name] = truncate_text(text, MAX_TEXT_CHARS)
            where = paper.source.rsplit(":", 1)[-1] if paper.source else None
            report.warnings.append(InputError(str(path), where, Messages.TEXT_TRUNCATED.format(
                field=name, n=len(text), limit=MAX_TEXT_CHARS)))
    if (texts["title"], texts["abstract"]) == (paper.title, paper.abstract):
        return paper
    return dataclasses.replace(paper, title=texts["title"], abstract=texts["abstract"])


def truncate_text(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters, after a word where one ends near the end.

    >>> truncate_text("one two three", limit=9)
    'one two'
    >>> truncate_text("x" * 12, limit=9)
    'xxxxxxxxx'
    """
    if len(text) <= limit:
        return text
    head = text[:limit + 1]
    space = max(head.rfind(" "), head.rfind("\n"))
    if space > limit // 2:  # a word boundary not too far back
        return head[:space].rstrip()
    return text[:limit]
