"""Print query results as a table, JSON or CSV (``--format``)."""

from __future__ import annotations

import csv
import json
import re
import sys
from collections.abc import Sequence
from typing import TextIO

__all__ = ["FORMATS", "emit", "one_line", "one_line_text", "redact_uris"]

FORMATS = ("table", "json", "csv")
# C0 and C1 controls (ESC, CSI, OSC, BEL ...), DEL, line and paragraph separators, and the
# bidirectional overrides that reorder what a terminal shows ("Trojan source").
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_CONTROL_BUT_LINES = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e"
                                r"\u2066-\u2069]")


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


def emit(rows: Sequence[dict], columns: Sequence[str], fmt: str = "table",
         stream: TextIO | None = None, *, max_width: int = 60) -> None:
    """Write ``rows`` to ``stream`` (stdout by default) in ``fmt``.

    JSON gets the full rows; table and CSV get ``columns``.
    """
    stream = stream or sys.stdout
    if fmt == "json":
        json.dump(list(rows), stream, ensure_ascii=False, indent=2)
        stream.write("\n")
        return
    if fmt == "csv":
        w = csv.writer(stream, lineterminator="\n")
        w.writerow(columns)
        for r in rows:
            w.writerow([_cell(r.get(c)) for c in columns])
        return
    cells = [[_cell(r.get(c)) for c in columns] for r in rows]
    cells = [[v if len(v) <= max_width else v[: max_width - 1] + "…" for v in row]
             for row in cells]
    widths = [max([len(c)] + [len(row[i]) for row in cells]) for i, c in enumerate(columns)]
    line = "  ".join(c.ljust(w) for c, w in zip(columns, widths, strict=True))
    stream.write(line.rstrip() + "\n" + "  ".join("-" * w for w in widths) + "\n")
    for row in cells:
        stream.write("  ".join(v.ljust(w) for v, w in zip(row, widths, strict=True)).rstrip()
                     + "\n")
    if not rows:
        stream.write("(no results)\n")
