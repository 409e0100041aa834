"""Markup of the report: escaping, table cells, numbers and the page that holds the sections.

Nothing here knows what a section says. Tables are rendered in Polars, one string per row
(``concat_str`` of escaped cells), so a table of many queries costs one pass over its frame.
Numbers get their digits from :func:`rankset._format.format_value`, as everywhere else in
rankset; the page shows NA as a dash and the minus sign as U+2212. The page's head, its
Content-Security-Policy (:data:`CSP`), style and script come from
:mod:`rankset.pages._shell`, which the dashboard shares.
"""

from __future__ import annotations

import html
import json
import math
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any, Final

import polars as pl

from rankset._format import DECIMALS, format_value
from rankset.pages._shell import CSP, asset, page_head, stylesheet

__all__ = [
    "CSP",
    "NA",
    "config_value",
    "esc",
    "esc_code",
    "esc_expr",
    "fmt",
    "fmt_p",
    "number_text",
    "p_text",
    "page",
    "table",
]

NA: Final = "–"  # shown for NA (null or NaN)
_MINUS: Final = "−"  # U+2212: as wide as the digits, unlike the hyphen
_P_FLOOR: Final = 10.0**-DECIMALS  # smaller p-values show as "<0.0001"

#: Cell kinds whose header is left-aligned text; every other kind is a right-aligned number.
_TEXT_KINDS = frozenset({"key", "text", "longtext"})


# --- escaping --------------------------------------------------------------------------------


def esc(text: object) -> str:
    """Escape any value for HTML text or a quoted attribute (``html.escape``, quotes too)."""
    return html.escape(str(text), quote=True)


def esc_code(text: str) -> str:
    """Escape ``text`` and set it in ``<code>``."""
    return f"<code>{esc(text)}</code>"


def esc_expr(expr: pl.Expr) -> pl.Expr:
    """Vectorised :func:`html.escape` (quote=True) of a string column.

    Examples
    --------
    >>> pl.select(esc_expr(pl.lit("<a href='x'>&</a>"))).item()
    '&lt;a href=&#x27;x&#x27;&gt;&amp;&lt;/a&gt;'
    """
    out = expr.cast(pl.String)
    for raw, entity in (
        ("&", "&amp;"),
        ("<", "&lt;"),
        (">", "&gt;"),
        ('"', "&quot;"),
        ("'", "&#x27;"),
    ):
        out = out.str.replace_all(raw, entity, literal=True)
    return out


def config_value(value: object) -> str:
    """Show a configuration value: strings as they are, anything else as JSON."""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, default=str)


# --- numbers ---------------------------------------------------------------------------------


def number_text(value: float | None, *, signed: bool = False) -> str:
    """Show one number: four decimals as trec_eval prints them, NA as a dash, minus U+2212.

    Examples
    --------
    >>> number_text(0.12345), number_text(-0.5, signed=True), number_text(float("nan"))
    ('0.1235', '−0.5000', '–')
    """
    # Fixed-point text holds at most one hyphen, the sign.
    return format_value(value, signed=signed, na=NA).replace("-", _MINUS)


def p_text(value: float | None) -> str:
    """Show one p-value: as :func:`number_text`, or ``<0.0001`` below what four decimals show.

    Examples
    --------
    >>> p_text(0.03125), p_text(2e-6), p_text(None)
    ('0.0312', '&lt;0.0001', '–')
    """
    if value is not None and value < _P_FLOOR:
        return f"&lt;{format_value(_P_FLOOR)}"
    return number_text(value)


def percent_text(value: float | None) -> str:
    """Show a relative change in percent with one decimal, signed; NA as a dash.

    Examples
    --------
    >>> percent_text(0.14), percent_text(-0.0421), percent_text(None)
    ('+14.0%', '−4.2%', '–')
    """
    if value is None or not math.isfinite(value):
        return NA
    return f"{100 * value:+.1f}%".replace("-", _MINUS)


def fmt(expr: pl.Expr, *, signed: bool = False) -> pl.Expr:
    """Format a float column with :func:`number_text`, value by value.

    Polars rounds the binary value times 10^4, which differs from correct decimal rounding
    near halves (0.12345 is 0.1234 there, 0.1235 in trec_eval), so the digits come from
    Python's formatting, applied to the column at once; only displayed cells (systems ×
    metrics, or the worst queries) are formatted.
    """
    return _texts(expr, partial(number_text, signed=signed))


def fmt_p(expr: pl.Expr) -> pl.Expr:
    """Format a p-value column with :func:`p_text`, value by value."""
    return _texts(expr, p_text)


def _texts(expr: pl.Expr, text: Callable[[float | None], str]) -> pl.Expr:
    return expr.cast(pl.Float64).map_batches(partial(_map_texts, text=text), return_dtype=pl.String)


def _map_texts(values: pl.Series, text: Callable[[float | None], str]) -> pl.Series:
    return pl.Series(values.name, [text(value) for value in values.to_list()], dtype=pl.String)


# --- tables ----------------------------------------------------------------------------------


def _cell(column: Any, kind: str) -> pl.Expr:
    if kind == "key":
        return pl.concat_str(pl.lit('<th scope="row">'), esc_expr(pl.col(column)), pl.lit("</th>"))
    if kind in {"text", "longtext"}:
        cls = "text" if kind == "longtext" else ""
        inner = esc_expr(pl.col(column)).fill_null(NA)
        return pl.concat_str(
            pl.lit(f'<td class="{cls}">' if cls else "<td>"), inner, pl.lit("</td>")
        )
    if kind == "int":
        inner = pl.col(column).cast(pl.String).fill_null(NA)
    elif kind == "num":
        inner = fmt(pl.col(column))
    elif kind == "signed":
        inner = fmt(pl.col(column), signed=True)
    elif kind == "p":
        inner = fmt_p(pl.col(column))
    elif kind == "percent":
        inner = _texts(pl.col(column), percent_text)
    elif kind == "ci":
        low, high = column
        inner = pl.concat_str(
            pl.lit("["),
            fmt(pl.col(low), signed=True),
            pl.lit(", "),
            fmt(pl.col(high), signed=True),
            pl.lit("]"),
        )
    elif kind == "wtl":
        inner = pl.concat_str(
            [pl.col(c).cast(pl.String).fill_null(NA) for c in column], separator=" / "
        )
    elif kind == "mark":
        return pl.concat_str(
            pl.lit('<td class="sig">'),
            pl.when(pl.col(column)).then(pl.lit("✓")).otherwise(pl.lit("")),
            pl.lit("</td>"),
        )
    else:  # pragma: no cover - internal misuse
        msg = f"unknown cell kind {kind!r}"
        raise ValueError(msg)
    return pl.concat_str(pl.lit('<td class="num">'), inner, pl.lit("</td>"))


def table(
    frame: pl.DataFrame,
    columns: Sequence[tuple[Any, str, str]],
    *,
    caption: str | None = None,
    caption_is_html: bool = False,
) -> str:
    """Render ``frame`` as an HTML table: ``(column(s), header, kind)`` per column, in Polars.

    Kinds: ``key`` (a row header), ``text``, ``longtext`` (wraps), ``int``, ``num``,
    ``signed``, ``p``, ``ci`` (two columns: low, high), ``wtl`` (three columns: wins, ties,
    losses) and ``mark`` (a check mark where true).

    Examples
    --------
    >>> frame = pl.DataFrame({"system": ["<a>"], "mean": [0.5]})
    >>> print(table(frame, [("system", "system", "key"), ("mean", "mean", "num")]))
    <table>
    <thead><tr><th scope="col">system</th><th scope="col" class="num">mean</th></tr></thead>
    <tbody><tr><th scope="row">&lt;a&gt;</th><td class="num">0.5000</td></tr></tbody>
    </table>
    """
    numeric = ' class="num"'
    head = "".join(
        f'<th scope="col"{"" if kind in _TEXT_KINDS else numeric}>{esc(label)}</th>'
        for _, label, kind in columns
    )
    if frame.height:
        rows = frame.select(
            pl.concat_str(
                pl.lit("<tr>"), *(_cell(col, kind) for col, _, kind in columns), pl.lit("</tr>")
            )
        ).to_series()
        body = "".join(rows.to_list())
    else:
        body = f'<tr><td colspan="{len(columns)}">no rows</td></tr>'
    cap = ""
    if caption is not None:
        cap = f"<caption>{caption if caption_is_html else esc(caption)}</caption>\n"
    return f"<table>\n{cap}<thead><tr>{head}</tr></thead>\n<tbody>{body}</tbody>\n</table>"


# --- the page --------------------------------------------------------------------------------


def page(*, title: str, header: str, body: str, bundle: str) -> str:
    """Return the document: metadata, style, the chart script ``bundle``, then the content.

    ``title`` is escaped here; ``header`` and ``body`` are markup already. The bundle is
    made safe for its ``<script>`` element; after it, ``report_vega_ast.js`` has every
    chart use Vega's expression interpreter, which the policy (:data:`CSP`) needs.
    """
    head = page_head(
        title=title,
        style=stylesheet("report.css"),
        scripts=[bundle, asset("report_vega_ast.js")],
    )
    return f"""{head}<body>
<main>
{header}
{body}
</main>
</body>
</html>
"""
