"""Tables that need no wrapping are drawn without rich, exactly as rich draws them.

rich takes about a millisecond a row (8 s for the 9,900 rows of the busiest concept at
20,000 papers), so :func:`kg.core.output.emit` draws a table whose cells all fit itself;
rich still lays out tables that must wrap into a terminal's (or ``--width``) columns.
"""

from __future__ import annotations

import io

from hypothesis import given, settings
from hypothesis import strategies as st
from rich import box
from rich.console import Console
from rich.table import Table

from kg.core.output import emit

#: ASCII, accented and combining letters, wide (East Asian) letters and emoji
LETTERS = st.sampled_from(list("abZ -é日本한😀") + ["\u0301"])
CELL = st.text(LETTERS, max_size=14)


def _rich(rows: list[list[str]], columns: list[str]) -> str:
    """The table as rich draws it on a console wide enough for every cell."""
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, header_style="",
                  padding=(0, 1))
    for c in columns:
        table.add_column(c, overflow="fold")
    for r in rows:
        table.add_row(*r)
    buf = io.StringIO()
    Console(file=buf, width=1000, color_system=None, markup=False, emoji=False,
            highlight=False, force_terminal=False).print(table)
    lines = [line.rstrip() for line in buf.getvalue().splitlines()]
    return "\n".join(line for line in lines if line) + "\n"


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 5).flatmap(lambda n: st.tuples(
    st.lists(st.text("abc", min_size=1, max_size=6), min_size=n, max_size=n, unique=True),
    st.lists(st.lists(CELL, min_size=n, max_size=n), max_size=5))))
def test_a_table_that_fits_is_drawn_as_rich_draws_it(table):
    columns, cells = table
    # what emit does to every cell first: whitespace runs made one space, ends stripped
    cells = [[" ".join(c.split()) for c in row] for row in cells]
    buf = io.StringIO()  # not a terminal: no width limit
    emit([dict(zip(columns, row, strict=True)) for row in cells], columns, stream=buf)
    expected = _rich(cells, columns) + ("" if cells else "(no results)\n")
    assert buf.getvalue() == expected


def test_wide_characters_do_not_wrap_a_table_that_is_not_in_a_terminal():
    title = "大規模言語モデルの推論と検証について"  # 18 letters, 36 terminal columns
    buf = io.StringIO()
    emit([{"id": "p1", "title": title}], ["id", "title"], stream=buf)
    lines = buf.getvalue().splitlines()
    assert lines[2] == f"p1   {title}"  # one line: it used to wrap at 18 columns
    assert lines[1] == "─" * (2 + 3 + 36)


def test_a_table_too_wide_for_its_width_still_wraps_within_it():
    rows = [{"id": "p1", "title": "a long title about MinHash and locality sensitive hashing"}]
    buf = io.StringIO()
    emit(rows, ["id", "title"], stream=buf, width=30)
    lines = buf.getvalue().splitlines()
    assert len(lines) > 3 and max(len(line) for line in lines) <= 30
    assert " ".join(" ".join(line.split()[1:] if line.startswith("p1") else line.split())
                    for line in lines[2:]) == rows[0]["title"]
