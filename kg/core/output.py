"""Print query results as a table, JSON or CSV (``--format``)."""

from __future__ import annotations

import csv
import io
import json
import re
import shutil
import sys
from collections.abc import Sequence
from typing import TextIO

__all__ = ["FORMATS", "KEEP_WHOLE", "emit", "one_line", "one_line_text", "redact_uris",
           "table_width"]

FORMATS = ("table", "json", "csv")
#: A table cell this short stays on one line when the table has room, so ids stay whole.
KEEP_WHOLE = 24
# C0 and C1 controls (ESC, CSI, OSC, BEL ...), DEL, line and paragraph separators, and the
# bidirectional overrides that reorder what a terminal shows ("Trojan source").
_CONTROL_BUT_LINES_CLASS = r"\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069"
_CONTROL_BUT_LINES = re.compile(f"[{_CONTROL_BUT_LINES_CLASS}]")
_CONTROL = re.compile(f"[\\t\\n{_CONTROL_BUT_LINES_CLASS}]")  # tab and line feed too


def one_line(text: str) -> str:
    """``text`` with line breaks and other control characters written as escapes.

    Error messages and table cells quote user data (a paper id, a title); this
    keeps them on one line and keeps terminal escape sequences out of the terminal.

    Examples
    --------
    >>> one_line("no paper with id 'a\\nb\\x1b[31m'")
    "no paper with id 'a\\\\nb\\\\x1b[31m'"
    """
    return _CONTROL.sub(_escape, text)


# scheme://userinfo@ — the userinfo may hold a password (bolt://neo4j:PW@host)
_USERINFO = re.compile(r"\b([A-Za-z][A-Za-z0-9+.-]*://)([^/?#@\s]*)@")


def redact_uris(text: str) -> str:
    """``text`` with the password (or token) of every ``scheme://user:password@`` hidden.

    Messages that show a URI given by the user go through it (every error line does).

    Examples
    --------
    >>> redact_uris("cannot reach a Bolt server at bolt://neo4j:s3cret@db:7687: refused")
    'cannot reach a Bolt server at bolt://neo4j:***@db:7687: refused'
    >>> redact_uris("https://TOKEN@example.org/sparql and mailto:a@b")
    'https://***@example.org/sparql and mailto:a@b'
    """
    def hide(m: re.Match[str]) -> str:
        user, sep, _ = m.group(2).partition(":")
        return f"{m.group(1)}{user}:***@" if sep else f"{m.group(1)}***@"

    return _USERINFO.sub(hide, text)


def one_line_text(text: str) -> str:
    """Like :func:`one_line` but keeps line breaks and tabs: for a block of text (Turtle).

    Every string from the data that reaches a terminal goes through :func:`one_line`
    (cells, headers, messages) or this function (multi-line blocks).

    Examples
    --------
    >>> one_line_text("a\\n\\tb\\x1b]0;owned\\x07")
    'a\\n\\tb\\\\x1b]0;owned\\\\x07'
    """
    return _CONTROL_BUT_LINES.sub(_escape, text)


def _escape(m: re.Match[str]) -> str:
    c = m.group()
    return f"\\u{ord(c):04x}" if ord(c) > 0xff else repr(c)[1:-1]


def _cell(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, (list, tuple)):
        return "; ".join(_cell(v) for v in value)
    return one_line(" ".join(str(value).split()))


def table_width(stream: TextIO, width: int | None = None, *, full: bool = False) -> int | None:
    """How wide a table written to ``stream`` may be; ``None``: as wide as its cells.

    ``width`` if given; else, unless ``full``, the terminal's width when ``stream``
    is a terminal. Output that is not a terminal (a pipe, a file) is never cut.

    Examples
    --------
    >>> table_width(io.StringIO()), table_width(io.StringIO(), 50), table_width(None, full=True)
    (None, 50, None)
    """
    if width is not None:
        return width
    if full or stream is None or not stream.isatty():
        return None
    return shutil.get_terminal_size().columns


def _cell_width(text: str) -> int:
    """Terminal columns ``text`` takes (wide East Asian characters count two)."""
    if text.isascii():
        return len(text)
    from rich.cells import cell_len

    return cell_len(text)


def _plain_table(cells: list[list[str]], columns: Sequence[str], widths: list[int]) -> str:
    """The table rich draws when no cell wraps: columns three spaces apart, a rule under
    the header. Drawn here because rich takes ~1 ms a row (8 s for 9,900 rows)."""
    def line(row: Sequence[str]) -> str:
        return "   ".join(c + " " * (w - _cell_width(c))
                          for c, w in zip(row, widths, strict=True)).rstrip()

    out = [line(columns), "─" * (sum(widths) + 3 * (len(widths) - 1))]
    out.extend(line(row) for row in cells)
    return "\n".join(x for x in out if x) + "\n"


def _table(cells: list[list[str]], columns: Sequence[str], width: int | None) -> str:
    widths = [max([_cell_width(c), *(_cell_width(r[i]) for r in cells)])
              for i, c in enumerate(columns)]
    if width is None or sum(widths) + 3 * (len(widths) - 1) <= width:
        return _plain_table(cells, columns, widths)
    # rich shares the width out between the columns and wraps long cells within
    # theirs (nothing is cut); no markup, emoji or colour: cells are data
    from rich import box
    from rich.console import Console
    from rich.table import Table

    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, header_style="",
                  padding=(0, 1))
    # ids and short labels stay on one line when that leaves room; long text wraps first
    keep = [w if w <= KEEP_WHOLE else 0 for w in widths]
    room = sum(keep) + 3 * (len(columns) - 1) + 6 * keep.count(0)
    if room > width:
        keep = [0] * len(columns)
    for c, k in zip(columns, keep, strict=True):
        table.add_column(c, overflow="fold", width=k or None)
    for row in cells:
        table.add_row(*row)
    buf = io.StringIO()
    console = Console(file=buf, width=width, color_system=None, markup=False, emoji=False,
                      highlight=False, force_terminal=False, legacy_windows=False)
    console.print(table)
    lines = [line.rstrip() for line in buf.getvalue().splitlines()]
    return "\n".join(line for line in lines if line) + "\n"


def emit(rows: Sequence[dict], columns: Sequence[str], fmt: str = "table",
         stream: TextIO | None = None, *, width: int | None = None, full: bool = False) -> None:
    """Write ``rows`` to ``stream`` (stdout by default) in ``fmt``.

    JSON gets the full rows; table and CSV get ``columns``. A table fits into
    :func:`table_width` columns: cells too long for their column wrap within it.

    Examples
    --------
    >>> emit([{"id": "neurips2026-abstracts-3", "title": "A long title about MinHash"}],
    ...      ["id", "title"], width=40)
    id                        title
    ────────────────────────────────────────
    neurips2026-abstracts-3   A long title
                              about MinHash
    """
    stream = stream or sys.stdout
    if fmt == "json":
        # written in pieces of ~64 KB: json.dump writes every token on its own (0.6 s of
        # system time for 9,900 rows to a pipe), one json.dumps string doubles the memory
        piece: list[str] = []
        size = 0
        for token in json.JSONEncoder(ensure_ascii=False, indent=2).iterencode(list(rows)):
            piece.append(token)
            size += len(token)
            if size >= 65536:
                stream.write("".join(piece))
                piece, size = [], 0
        piece.append("\n")
        stream.write("".join(piece))
        return
    if fmt == "csv":
        w = csv.writer(stream, lineterminator="\n")
        w.writerow(columns)
        for r in rows:
            w.writerow([_cell(r.get(c)) for c in columns])
        return
    cells = [[_cell(r.get(c)) for c in columns] for r in rows]
    stream.write(_table(cells, columns, table_width(stream, width, full=full)))
    if not rows:
        stream.write("(no results)\n")
