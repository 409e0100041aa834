"""Number and script formatting shared by the CLI, the charts, the HTML report and reprs.

Four decimals as trec_eval prints them, a fixed spelling for NA, the escape that keeps
JSON or JavaScript inside a ``<script>`` element from ending it, and the small tables the
result objects print as their ``repr`` (80 columns) and ``_repr_html_`` (escaped HTML).
Plain Python only: no polars here, callers pass the rows they want shown.
"""

from __future__ import annotations

import html
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = [
    "DECIMALS",
    "REPR_ROWS",
    "REPR_WIDTH",
    "ReprTable",
    "counted",
    "format_cell",
    "format_p",
    "format_value",
    "html_repr",
    "listing",
    "script_safe",
    "text_repr",
]

#: Decimals shown for metric values, as trec_eval prints them.
DECIMALS = 4
_SCRIPT_END = re.compile(r"</(script)", re.IGNORECASE)


def format_value(value: float | None, *, signed: bool = False, na: str = "NA") -> str:
    """Format a metric value with four decimals (``printf("%.4f")``); NA for null or NaN.

    Examples
    --------
    >>> format_value(0.12345), format_value(0.5, signed=True), format_value(None)
    ('0.1235', '+0.5000', 'NA')
    """
    if value is None or not math.isfinite(value):
        return na
    return format(value, f"{'+' if signed else ''}.{DECIMALS}f")


# Below this a p-value is written in scientific notation.
_P_SCIENTIFIC = 1e-3


def format_p(value: float | None, *, na: str = "NA") -> str:
    """Format a p-value: four decimals, or scientific notation below 0.001.

    Below 0.001 four decimals keep one or two digits, and a randomization test's smallest
    p-value, 1 / (resamples + 1), would print as ``0.0002`` with 5,000 resamples and
    ``1.0e-04`` with 10,000; every small p-value is written alike instead.

    Examples
    --------
    >>> format_p(0.03125), format_p(2e-6), format_p(float("nan"))
    ('0.0312', '2.0e-06', 'NA')
    >>> format_p(1 / 5001), format_p(1 / 10001), format_p(0.001)
    ('2.0e-04', '1.0e-04', '0.0010')
    """
    if value is None or math.isnan(value):
        return na
    return format_value(value) if value >= _P_SCIENTIFIC else f"{value:.1e}"


def script_safe(script: str) -> str:
    r"""Escape JavaScript for the inside of a ``<script>`` element.

    Only ``</script`` ends the element, in any letter case, and ``<!--`` can open a
    comment state there; ``<\/`` and ``<\!`` mean the same characters in JavaScript
    strings. (JSON data is safer written with ``<`` as ``\u003c``, as the charts do.)

    Examples
    --------
    >>> script_safe('var a = "</script><!--", b = "</SCRIPT>";')
    'var a = "<\\/script><\\!--", b = "<\\/SCRIPT>";'
    """
    return _SCRIPT_END.sub(r"<\\/\1", script).replace("<!--", "<\\!--")


# --- reprs ---------------------------------------------------------------------------

#: Width of a repr's text: a plain terminal.
REPR_WIDTH = 80
#: Rows of a table a repr shows before it summarises the rest.
REPR_ROWS = 10
# Widest cell of a key column, and of any other column, in the text form.
_KEY_CELL, _CELL = 30, 24
# Columns an HTML repr shows besides the key columns.
_HTML_COLUMNS = 24
_NUMBER = re.compile(r"[-+]?(\d[\d,]*(\.\d+)?(e[-+]?\d+)?%?|NA)")


@dataclass(frozen=True)
class ReprTable:
    """A small table of a repr: a header, the rows to show, the leading key columns.

    The text form keeps the ``keys`` leading columns and as many of the others, in order,
    as fit the width; the rest are named on a line "… and N more <column_noun>: ...".
    Rows past :data:`REPR_ROWS` (or past those given, when ``n_rows`` is larger) are
    counted on a line "… and N more <row_noun>".
    """

    columns: Sequence[str]
    rows: Sequence[Sequence[object]]
    keys: int = 1
    n_rows: int | None = None
    row_noun: str = "rows"
    column_noun: str = "columns"
    caption: str = ""
    name_hidden: bool = True  # name the columns left out (once is enough for like tables)


def format_cell(value: object) -> str:
    r"""Format one cell: four decimals for floats, NA for nulls, lists joined, one line.

    Examples
    --------
    >>> [format_cell(v) for v in (0.12345, 3, None, True, ["a", "b"], "x\ny")]
    ['0.1235', '3', 'NA', 'true', 'a, b', 'x\\ny']
    """
    if value is None:
        return "NA"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float):
        return format_value(value)
    if isinstance(value, list | tuple):
        return ", ".join(format_cell(item) for item in value)
    text = str(value)
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode() for c in text)


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: max(width - 1, 0)] + "…"


def counted(n: int, singular: str, plural: str | None = None) -> str:
    """Return ``n`` and the noun, plural unless ``n`` is 1.

    Examples
    --------
    >>> counted(1, "system"), counted(1200, "query", "queries")
    ('1 system', '1,200 queries')
    """
    return f"{n:,} {singular if n == 1 else plural or singular + 's'}"


def listing(names: Sequence[str], width: int = REPR_WIDTH) -> str:
    """Join names with commas in at most ``width`` characters, counting those left out.

    Examples
    --------
    >>> listing(["ndcg@10", "recall@100", "ap"]), listing(list("abcdefgh"), 16)
    ('ndcg@10, recall@100, ap', 'a, b, … 6 more')
    """
    shown = [format_cell(name) for name in names]
    for count in range(len(shown), -1, -1):
        rest = len(shown) - count
        text = ", ".join([*shown[:count], *([f"… {rest} more"] if rest else [])])
        if len(text) <= width:
            return text
    return _clip(f"{len(shown)} names", width)


def _cells(table: ReprTable) -> tuple[list[str], list[list[str]], int]:
    rows = [[format_cell(value) for value in row] for row in table.rows[:REPR_ROWS]]
    total = max(len(table.rows), table.n_rows or 0)
    return [format_cell(column) for column in table.columns], rows, total - len(rows)


def _numeric(column: list[str]) -> bool:
    return bool(column) and all(_NUMBER.fullmatch(cell) for cell in column)


def _text_table(table: ReprTable, width: int) -> list[str]:
    header, rows, more_rows = _cells(table)
    spans = []
    for index, name in enumerate(header):
        cap = _KEY_CELL if index < table.keys else _CELL
        spans.append(min(cap, max([len(name), *(len(row[index]) for row in rows)])))
    shown = min(table.keys, len(header))
    used = sum(spans[:shown]) + 2 * max(shown - 1, 0)
    while shown < len(header) and used + 2 + spans[shown] <= width:
        used += 2 + spans[shown]
        shown += 1
    right = [
        index >= table.keys and _numeric([row[index] for row in rows]) for index in range(shown)
    ]

    def line(cells: Sequence[str]) -> str:
        parts = []
        for index in range(shown):
            cell = _clip(cells[index], spans[index])
            parts.append(cell.rjust(spans[index]) if right[index] else cell.ljust(spans[index]))
        return _clip("  ".join(parts).rstrip(), width)

    lines = [_clip(table.caption, width)] if table.caption else []
    lines += [line(header), *(line(row) for row in rows)]
    if more_rows:
        lines.append(_clip(f"… and {more_rows} more {table.row_noun}", width))
    hidden = header[shown:]
    if hidden and table.name_hidden:
        head = f"… and {len(hidden)} more {table.column_noun}: "
        lines.append(_clip(head + listing(hidden, max(width - len(head), 1)), width))
    return lines


def text_repr(title: str, *blocks: ReprTable | str, width: int = REPR_WIDTH) -> str:
    """Return a repr's text: the title, then each table or line, every line in ``width``.

    Examples
    --------
    >>> table = ReprTable(["system", "ndcg@10", "ap"], [["bm25", 0.5, 0.25]])
    >>> print(text_repr("EvaluationResult: 1 system", table, "(means)"))
    EvaluationResult: 1 system
    system  ndcg@10      ap
    bm25     0.5000  0.2500
    (means)
    >>> table = ReprTable(["system", "ndcg@10", "ap", "rr"], [["bm25", 0.5, 0.25, 1.0]])
    >>> print(text_repr("Narrow", table, width=24))
    Narrow
    system  ndcg@10      ap
    bm25     0.5000  0.2500
    … and 1 more columns: rr
    """
    lines = [_clip(format_cell(title), width)]
    for block in blocks:
        if isinstance(block, ReprTable):
            lines.extend(_text_table(block, width))
        else:
            lines.append(_clip(format_cell(block), width))
    return "\n".join(lines)


def _html_table(table: ReprTable) -> str:
    header, rows, more_rows = _cells(table)
    shown = min(len(header), table.keys + _HTML_COLUMNS)

    def cells(values: Sequence[str], tag: str) -> str:
        return "".join(f"<{tag}>{html.escape(value)}</{tag}>" for value in values[:shown])

    parts = [f"<p>{html.escape(table.caption)}</p>"] if table.caption else []
    parts.append(f"<table><thead><tr>{cells(header, 'th')}</tr></thead><tbody>")
    parts.extend(f"<tr>{cells(row, 'td')}</tr>" for row in rows)
    parts.append("</tbody></table>")
    if more_rows:
        parts.append(f"<p>… and {more_rows} more {html.escape(table.row_noun)}</p>")
    hidden = header[shown:]
    if hidden and table.name_hidden:
        noun = html.escape(table.column_noun)
        names = html.escape(listing(hidden, 4 * REPR_WIDTH))
        parts.append(f"<p>… and {len(hidden)} more {noun}: {names}</p>")
    return "".join(parts)


def html_repr(title: str, *blocks: ReprTable | str) -> str:
    """Return a repr's HTML (``_repr_html_``): the same blocks, every string escaped.

    Examples
    --------
    >>> html_repr("R: <b>", ReprTable(["system"], [["<i>x</i>"]]))  # doctest: +ELLIPSIS
    '<div><p><strong>R: &lt;b&gt;</strong></p>...<td>&lt;i&gt;x&lt;/i&gt;</td>...</div>'
    """
    parts = [f"<div><p><strong>{html.escape(format_cell(title))}</strong></p>"]
    for block in blocks:
        if isinstance(block, ReprTable):
            parts.append(_html_table(block))
        else:
            parts.append(f"<p>{html.escape(format_cell(block))}</p>")
    parts.append("</div>")
    return "".join(parts)
