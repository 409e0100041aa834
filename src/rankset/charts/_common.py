"""What every chart builder shares: frame checks, inlined or named data, tooltips, titles.

A builder accepts a rankset object or its frame, checks the columns it reads, and inlines
the rows into the spec (``alt.Data(values=...)``), so Altair's 5,000-row limit does not
apply and no global data transformer is changed; ``max_rows`` bounds what a page carries.
A builder that a page drives also accepts the name of a dataset instead (a ``str``): its
spec then reads ``alt.NamedData(name)``, which the page fills, with the same encodings.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

import altair as alt
import polars as pl

from rankset._format import DECIMALS
from rankset._validation import check_int, did_you_mean, missing_columns_message
from rankset.errors import ParameterError, SchemaError, UnknownMetricError
from rankset.measures import Metric, parse_metric

__all__ = [
    "MAX_ROWS",
    "VALUE_FORMAT",
    "header",
    "inline",
    "inline_frame",
    "metric_of",
    "named",
    "param_value",
    "require_columns",
    "resolve_metric",
    "title",
    "to_frame",
    "tooltip",
    "unique",
]

#: Most rows a builder inlines into a chart unless told otherwise.
MAX_ROWS: Final = 100_000

#: d3 format of a metric value in a tooltip: the decimals trec_eval prints.
VALUE_FORMAT: Final = f".{DECIMALS}f"


def to_frame(obj: Any, attribute: str | None, columns: Sequence[str], what: str) -> pl.DataFrame:
    """Return ``obj`` (or its ``attribute``) as a DataFrame holding ``columns``."""
    if attribute is not None and not isinstance(obj, pl.DataFrame | pl.LazyFrame):
        inner = getattr(obj, attribute, None)
        if isinstance(inner, pl.DataFrame):
            obj = inner
    if isinstance(obj, pl.LazyFrame):
        obj = obj.collect()
    if not isinstance(obj, pl.DataFrame):
        kind = f"an object with .{attribute} or " if attribute else ""
        msg = (
            f"The '{what}' parameter must be {kind}a polars DataFrame. "
            f"Got {type(obj).__name__} instead."
        )
        raise ParameterError(msg)
    require_columns(obj, columns, what)
    return obj


def require_columns(frame: pl.DataFrame, columns: Sequence[str], what: str) -> None:
    """Raise :class:`SchemaError` naming the ``columns`` that ``frame`` lacks."""
    missing = [name for name in columns if name not in frame.columns]
    if missing:
        raise SchemaError(
            missing_columns_message(f"The {what} frame", missing, columns, frame.columns)
        )


def unique(frame: pl.DataFrame, column: str) -> list[str]:
    """Return the distinct non-null values of ``column`` as strings, in frame order."""
    return [str(v) for v in frame[column].drop_nulls().unique(maintain_order=True).to_list()]


def resolve_metric(name: str, present: list[str], what: str) -> str:
    """Return the name in ``present`` that ``name`` (canonical or an alias) stands for."""
    if name in present:
        return name
    try:
        metric = parse_metric(name)
    except UnknownMetricError:
        metric = None
    if metric is not None:
        for candidate in (metric.name, Metric(metric.measure, None, metric.params).name):
            if candidate in present:
                return candidate
    msg = f"The metric {name!r} is not in the {what} (metrics: {', '.join(present)})."
    raise ParameterError(msg + did_you_mean(name, present))


def inline_frame(frame: pl.DataFrame, max_rows: int, what: str) -> alt.Data:
    """Return the rows of ``frame`` as inline data; NaN becomes null (JSON has no NaN)."""
    max_rows = check_int("max_rows", max_rows, 1)
    if frame.height > max_rows:
        msg = (
            f"The {what} chart would inline {frame.height:,} rows, above max_rows="
            f"{max_rows:,}. Filter the frame (fewer metrics, systems or queries) or pass a "
            "larger max_rows= (the HTML and the browser grow with it)."
        )
        raise ParameterError(msg)
    floats = [name for name, dtype in frame.schema.items() if dtype.is_float()]
    if floats:
        frame = frame.with_columns(pl.col(floats).fill_nan(None))
    return inline(frame.to_dicts())


def inline(rows: list[dict[str, Any]]) -> alt.Data:
    """Return ``rows`` as inline data."""
    return alt.Data(values=rows)  # type: ignore[no-untyped-call]


def named(name: str, what: str) -> alt.NamedData:
    """Return the dataset ``name`` that the page fills (the dashboard's script sets its rows)."""
    if not name:
        msg = f"The {what} chart's dataset name must not be empty."
        raise ParameterError(msg)
    return alt.NamedData(name=name)


def param_value(param: alt.Parameter, what: str) -> str:
    """Return the value a variable parameter starts at: the metric a chart first draws."""
    value = getattr(param.param, "value", None)
    if not isinstance(value, str):
        msg = (
            f"The {what} chart's metric parameter {param.name!r} must start at a metric "
            f"name (alt.param(name=..., value='ndcg@10')). Got {value!r} instead."
        )
        raise ParameterError(msg)
    return value


def metric_of(metric: str | alt.Parameter | None, what: str) -> str | None:
    """Return the metric a chart draws first: ``metric``, or the value a parameter starts at."""
    if isinstance(metric, alt.Parameter):
        return param_value(metric, what)
    return metric


def tooltip(frame: pl.DataFrame, columns: Sequence[str]) -> list[alt.Tooltip]:
    """Return a tooltip entry per column of ``columns`` that ``frame`` has, typed by dtype."""
    tips = []
    for name in columns:
        if name not in frame.columns:
            continue
        dtype = frame.schema[name]
        if dtype.is_float():
            fmt = ".3g" if name in ("p", "p_adj") else VALUE_FORMAT
            tips.append(alt.Tooltip(f"{name}:Q", format=fmt))
        elif dtype.is_numeric():
            tips.append(alt.Tooltip(f"{name}:Q"))
        else:
            tips.append(alt.Tooltip(f"{name}:N"))
    return tips


def header(**options: Any) -> alt.Header:
    """Return a facet header readable without the theme."""
    # The theme's header config cannot override explicit sizes, so these match it.
    return alt.Header(labelFontSize=13, **options)


def title(text: str, subtitle: str | Sequence[str] = "") -> alt.Title:
    """Return a chart title, with a subtitle when one is given."""
    if subtitle:
        return alt.Title(text, subtitle=subtitle)
    return alt.Title(text)
