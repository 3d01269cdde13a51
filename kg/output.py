"""Print query results as a table, JSON or CSV (``--format``)."""

from __future__ import annotations

import csv
import json
import sys
from collections.abc import Sequence
from typing import TextIO

FORMATS = ("table", "json", "csv")


def _cell(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, (list, tuple)):
        return "; ".join(_cell(v) for v in value)
    return " ".join(str(value).split())


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
