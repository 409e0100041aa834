"""Altair charts over rankset's result frames, and self-contained HTML/PNG/SVG export.

Every builder takes a rankset object (or its frame) and returns a declarative Altair chart;
none recomputes a metric. The rules, stated once:

Data
    Rows are inlined into the spec (``alt.Data(values=...)``), so Altair's 5,000-row limit
    (``MaxRowsError``) does not apply and no global data transformer is changed. Above
    ``max_rows`` rows (default :data:`MAX_ROWS`) a builder raises
    :class:`~rankset.errors.ParameterError`: filter metrics or systems, or raise ``max_rows``.
    NaN becomes null (JSON has no NaN).
Colours
    :func:`system_colors` maps the *sorted* system names onto :data:`PALETTE` in order. A
    builder colours with the systems it sees, unless ``colors=`` is given: pass
    ``system_colors(all_systems)`` to every chart of a report so a system keeps its colour
    even in a chart where some systems are absent (the comparison chart never shows the
    baseline).
Theme
    Importing this module registers the ``"rankset"`` theme and enables nothing; enabling
    it is the caller's choice: ``alt.theme.enable("rankset")``.
Export
    :func:`save_chart` writes JSON (no extra dependency), and HTML, PNG and SVG through
    vl-convert (``pip install "rankset[render]"``). HTML inlines the Vega, Vega-Lite and
    vega-embed JavaScript: it loads nothing from the network.

Examples
--------
>>> import polars as pl
>>> from rankset.charts import distribution_chart
>>> per_query = pl.DataFrame(
...     {
...         "system": ["bm25", "bm25", "dense", "dense"],
...         "query_id": ["q1", "q2", "q1", "q2"],
...         "metric": "ndcg@10",
...         "value": [0.5, 0.25, 0.75, 0.5],
...     }
... )
>>> spec = distribution_chart(per_query, "ndcg@10").to_dict()
>>> [layer["mark"]["type"] for layer in spec["layer"]]
['boxplot', 'point']
>>> spec["title"]["text"]
'ndcg@10 per query'
"""

from __future__ import annotations

import difflib
import functools
import hashlib
import html
import json
import math
import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any, Final, Literal, TypeAlias, get_args

import altair as alt
import polars as pl

from rankset.comparison import COMPARE_COLUMNS
from rankset.cutoff_curves import Curves
from rankset.diagnosis import QUADRANTS, Diagnosis
from rankset.errors import (
    MissingDependencyError,
    ParameterError,
    SchemaError,
    UnknownMetricError,
)
from rankset.evaluation import EvaluationResult
from rankset.io import atomic_path
from rankset.registry import Metric, parse_metric

__all__ = [
    "MAX_ROWS",
    "PALETTE",
    "THEME",
    "ChartFormat",
    "comparison_chart",
    "curves_chart",
    "diagnostic_heatmap",
    "diagnostic_scatter",
    "difference_chart",
    "distribution_chart",
    "embed_fragment",
    "inline_html",
    "javascript_bundle",
    "register_theme",
    "save_chart",
    "system_colors",
]

#: Name under which :func:`register_theme` registers the theme.
THEME: Final = "rankset"

#: Most rows a builder inlines into a chart unless told otherwise.
MAX_ROWS: Final = 100_000

#: Categorical palette: Okabe & Ito's colour-blind-safe eight (yellow and black last),
#: then Paul Tol's "muted" nine; systems beyond 17 reuse colours in order.
PALETTE: Final[tuple[str, ...]] = (
    "#0072B2",
    "#E69F00",
    "#009E73",
    "#CC79A7",
    "#56B4E9",
    "#D55E00",
    "#F0E442",
    "#000000",
    "#332288",
    "#88CCEE",
    "#44AA99",
    "#117733",
    "#999933",
    "#DDCC77",
    "#CC6677",
    "#882255",
    "#AA4499",
)

#: Output formats of :func:`save_chart`.
ChartFormat: TypeAlias = Literal["html", "png", "svg", "json"]

_QUADRANT_COLORS: Final = ("#009E73", "#E69F00", "#56B4E9", "#D55E00")
_OUTCOMES: Final = ("win", "tie", "loss")
_OUTCOME_COLORS: Final = ("#0072B2", "#BBBBBB", "#D55E00")
_NA_STATUS: Final = ("defined", "NA (PROC = 0), drawn at 0")
_FONT: Final = "Helvetica Neue, Helvetica, Arial, Liberation Sans, DejaVu Sans, sans-serif"
_FLOAT: Final = ".4f"
_EXTENSIONS: Final[dict[str, ChartFormat]] = {
    ".html": "html",
    ".htm": "html",
    ".png": "png",
    ".svg": "svg",
    ".json": "json",
}
_ELEMENT_ID = re.compile(r"^[A-Za-z][A-Za-z0-9_\-]*$")
# Characters that could end a <script> element or open an HTML comment inside one, and the
# two line terminators that older JavaScript engines reject inside string literals.
_SCRIPT_ESCAPES: Final = {
    "<": "\\u003c",
    ">": "\\u003e",
    "&": "\\u0026",
    "\u2028": "\\u2028",
    "\u2029": "\\u2029",
}
_EMBED_OPTIONS: Final = {
    "mode": "vega-lite",
    "renderer": "svg",
    # Only local actions: the editor link would send the spec to vega.github.io.
    "actions": {"export": True, "source": True, "compiled": False, "editor": False},
    # Vega's interpreter instead of Function(): pages then work under a Content-Security-
    # Policy without 'unsafe-eval' (the report sets one).
    "ast": True,
}


# --- theme and colours -------------------------------------------------------------------


def _theme() -> alt.theme.ThemeConfig:
    return {
        "config": {
            "font": _FONT,
            "view": {"continuousWidth": 320, "continuousHeight": 220, "stroke": "#DDDDDD"},
            "range": {"category": list(PALETTE)},
            "axis": {
                "labelFontSize": 12,
                "titleFontSize": 13,
                "titleFontWeight": "normal",
                "gridColor": "#EEEEEE",
                "domainColor": "#888888",
                "tickColor": "#888888",
            },
            "header": {"labelFontSize": 13, "titleFontSize": 13, "titleFontWeight": "normal"},
            "legend": {"labelFontSize": 12, "titleFontSize": 13, "titleFontWeight": "normal"},
            "title": {"fontSize": 16, "subtitleFontSize": 12, "anchor": "start"},
            "text": {"fontSize": 12},
        }
    }


def register_theme() -> None:
    """Register the ``"rankset"`` Altair theme without enabling it.

    The theme sets readable font sizes, light grid lines and the colour-blind-safe
    :data:`PALETTE` as the categorical range. Importing :mod:`rankset.charts` registers it
    already; calling this again is harmless. Enable it with ``alt.theme.enable("rankset")``.

    Examples
    --------
    >>> import altair as alt
    >>> register_theme()
    >>> "rankset" in alt.theme.names()
    True
    """
    alt.theme.register(THEME, enable=False)(_theme)


def system_colors(systems: Sequence[str]) -> alt.Scale:
    """Return a colour scale giving each system a stable colour.

    The sorted, distinct system names map onto :data:`PALETTE` in order, so the same set of
    systems gets the same colours in every chart.

    Parameters
    ----------
    systems
        System names (order and repeats do not matter).

    Returns
    -------
    altair.Scale
        A scale with ``domain`` the sorted names and ``range`` their colours.

    Examples
    --------
    >>> scale = system_colors(["rerank", "bm25", "rerank"])
    >>> scale.to_dict()
    {'domain': ['bm25', 'rerank'], 'range': ['#0072B2', '#E69F00']}
    """
    if isinstance(systems, str):
        systems = [systems]
    domain = sorted({str(name) for name in systems})
    colors = [PALETTE[i % len(PALETTE)] for i in range(len(domain))]
    return alt.Scale(domain=domain, range=colors)


# --- builders ----------------------------------------------------------------------------


def curves_chart(
    curves: Curves | pl.DataFrame,
    *,
    metrics: Sequence[str] | None = None,
    ci: bool = True,
    colors: alt.Scale | None = None,
    columns: int = 3,
    max_rows: int = MAX_ROWS,
) -> alt.TopLevelMixin:
    """Chart metric-vs-cutoff curves: a line per system, a panel per metric.

    Parameters
    ----------
    curves
        A :class:`~rankset.cutoff_curves.Curves` or its ``summary`` frame
        (``system, metric, k, mean`` and, for the band, ``ci_low, ci_high``).
    metrics
        The metrics to draw, in panel order (default: all, in frame order).
    ci
        Draw the confidence band ``ci_low .. ci_high`` behind each line.
    colors
        Colour scale for systems (default: :func:`system_colors` of the systems shown).
    columns
        Panels per row before wrapping.
    max_rows
        Most rows to inline.

    Returns
    -------
    altair.FacetChart
        Faceted by ``metric``; y scales are independent per panel.

    Examples
    --------
    >>> import polars as pl
    >>> summary = pl.DataFrame(
    ...     {
    ...         "system": ["a", "a", "b", "b"],
    ...         "metric": "ndcg",
    ...         "k": [1, 2, 1, 2],
    ...         "mean": [0.5, 0.6, 0.4, 0.5],
    ...         "ci_low": [0.4, 0.5, 0.3, 0.4],
    ...         "ci_high": [0.6, 0.7, 0.5, 0.6],
    ...     }
    ... )
    >>> spec = curves_chart(summary).to_dict()
    >>> [layer["mark"]["type"] for layer in spec["spec"]["layer"]]
    ['area', 'line']
    >>> spec["facet"]["field"]
    'metric'
    """
    frame = _frame(curves, "summary", ("system", "metric", "k", "mean"), "curves")
    if ci:
        _require(frame, ("ci_low", "ci_high"), "curves summary (for ci=True)")
    present = _unique(frame, "metric")
    chosen = present if metrics is None else [_resolve(m, present, "curves") for m in metrics]
    frame = frame.filter(pl.col("metric").is_in(chosen))
    _check_int("columns", columns, 1)
    scale = colors or system_colors(_unique(frame, "system"))

    single = len(chosen) == 1
    y_title = f"mean {chosen[0]}" if single else "mean over queries"
    base = alt.Chart().encode(
        x=alt.X("k:Q", title="cutoff k", axis=alt.Axis(tickMinStep=1, format="d")),
        # Opaque legend symbols: the band's opacity would otherwise wash them out.
        color=alt.Color(
            "system:N", scale=scale, title="system", legend=alt.Legend(symbolOpacity=1.0)
        ),
    )
    line = base.mark_line(point=True, strokeWidth=2).encode(
        y=alt.Y("mean:Q", title=y_title),
        tooltip=_tooltip(frame, ["system", "metric", "k", "mean", "ci_low", "ci_high"]),
    )
    layers: list[alt.Chart] = []
    if ci:
        layers.append(
            base.mark_area(opacity=0.18).encode(
                y=alt.Y("ci_low:Q", title=y_title),
                y2=alt.Y2("ci_high:Q"),
            )
        )
    layers.append(line)
    subtitle = "shaded: confidence interval of the mean" if ci else ""
    title = f"{chosen[0]} by cutoff" if single else "Metrics by cutoff"
    chart: alt.TopLevelMixin = (
        alt.layer(*layers, data=_data(frame, max_rows, "curves"))
        .properties(width=260, height=200)
        .facet(
            facet=alt.Facet("metric:N", title=None, sort=chosen, header=_header()),
            columns=min(columns, len(chosen)) or 1,
        )
        .resolve_scale(y="independent")
        .properties(title=_title(title, subtitle))
    )
    return chart


def comparison_chart(
    comparison: pl.DataFrame,
    *,
    test: str = "randomization",
    colors: alt.Scale | None = None,
    max_rows: int = MAX_ROWS,
) -> alt.TopLevelMixin:
    """Chart each system's difference from the baseline with its confidence interval.

    One row of panels per metric; in each, per system, the mean difference ``delta`` as a
    point with an error bar ``ci_low .. ci_high`` and a rule at zero. A filled point is a
    significant difference (``reject``, after correction); a hollow point is not.

    Parameters
    ----------
    comparison
        The frame of :func:`rankset.compare`.
    test
        Which test's rows to draw (its ``p``, ``p_adj`` and ``reject``).
    colors
        Colour scale for systems (pass :func:`system_colors` of *all* systems, baseline
        included, to match the other charts of a report).
    max_rows
        Most rows to inline.

    Returns
    -------
    altair.FacetChart
        Faceted by ``metric`` (rows); x scales are independent per metric.

    Examples
    --------
    >>> import polars as pl
    >>> frame = pl.DataFrame(
    ...     {
    ...         "system": ["new"],
    ...         "metric": ["rr"],
    ...         "test": ["randomization"],
    ...         "mean": [0.8],
    ...         "baseline_mean": [0.6],
    ...         "delta": [0.2],
    ...         "ci_low": [0.05],
    ...         "ci_high": [0.35],
    ...         "p": [0.01],
    ...         "p_adj": [0.01],
    ...         "reject": [True],
    ...         "wins": [3],
    ...         "ties": [1],
    ...         "losses": [0],
    ...     }
    ... )
    >>> spec = comparison_chart(frame).to_dict()
    >>> spec["spec"]["layer"][2]["encoding"]["fillOpacity"]["field"]
    'reject'
    """
    columns = ("system", "metric", "test", "delta", "ci_low", "ci_high", "reject")
    frame = _frame(comparison, None, columns, "comparison")
    tests = _unique(frame, "test")
    if test not in tests:
        msg = f"The comparison frame has no rows for test {test!r} (tests: {', '.join(tests)})."
        msg += _did_you_mean(test, tests)
        raise ParameterError(msg)
    frame = frame.filter(pl.col("test") == test)
    repeated = frame.filter(pl.struct("system", "metric").is_duplicated())
    if repeated.height:
        # "W/T/L" is the column a report adds for display.
        extra = [c for c in frame.columns if c not in {*COMPARE_COLUMNS, "W/T/L"}]
        msg = (
            "The comparison frame has several rows per (system, metric) for one test"
            + (f" (slice columns: {', '.join(extra)})" if extra else "")
            + "; filter it to one slice before charting."
        )
        raise ParameterError(msg)
    if {"wins", "ties", "losses"} <= set(frame.columns):
        frame = frame.with_columns(
            pl.concat_str(
                pl.col("wins").cast(pl.String),
                pl.col("ties").cast(pl.String),
                pl.col("losses").cast(pl.String),
                separator="/",
            ).alias("W/T/L")
        )
    metrics = _unique(frame, "metric")
    systems = sorted(_unique(frame, "system"))
    scale = colors or system_colors(systems)
    lower = [m for m in metrics if not _greater_is_better(m, strict=False)]

    y = alt.Y("system:N", title=None, sort=systems)
    base = alt.Chart().encode(y=y)
    zero = (
        alt.Chart()
        .mark_rule(color="#888888", strokeDash=[4, 3])
        .encode(x=alt.X(datum=0, type="quantitative"))
    )
    bars = base.mark_rule(strokeWidth=2).encode(
        x=alt.X("ci_low:Q", title="Δ vs baseline (mean, with CI)"),
        x2=alt.X2("ci_high:Q"),
        color=alt.Color("system:N", scale=scale, legend=None),
    )
    points = base.mark_point(filled=True, size=110, strokeWidth=2).encode(
        x=alt.X("delta:Q", title="Δ vs baseline (mean, with CI)"),
        color=alt.Color("system:N", scale=scale, legend=None),
        stroke=alt.Stroke("system:N", scale=scale, legend=None),
        fillOpacity=alt.FillOpacity(
            "reject:N",
            scale=alt.Scale(domain=[True, False], range=[1.0, 0.0]),
            legend=None,  # explained in the subtitle: vega-lite draws no fillOpacity legend
        ),
        tooltip=_tooltip(
            frame,
            [
                "system",
                "metric",
                "mean",
                "baseline_mean",
                "delta",
                "ci_low",
                "ci_high",
                "p",
                "p_adj",
                "reject",
                "W/T/L",
            ],
        ),
    )
    label_expr = "datum.value"
    if lower:
        label_expr = (
            f"datum.value + (indexof({json.dumps(lower)}, datum.value) >= 0"
            " ? ' (lower is better)' : '')"
        )
    chart: alt.TopLevelMixin = (
        alt.layer(zero, bars, points, data=_data(frame, max_rows, "comparison"))
        .properties(width=360, height=alt.Step(26))
        .facet(
            row=alt.Row(
                "metric:N",
                title=None,
                sort=metrics,
                header=_header(labelAngle=0, labelAlign="left", labelExpr=label_expr),
            )
        )
        .resolve_scale(x="independent")
        .properties(
            title=_title(
                "Difference from the baseline",
                f"{test} test; filled point: significant after correction; bar: CI of Δ",
            )
        )
    )
    return chart


def distribution_chart(
    result: EvaluationResult | pl.DataFrame,
    metric: str,
    *,
    colors: alt.Scale | None = None,
    max_rows: int = MAX_ROWS,
) -> alt.TopLevelMixin:
    """Chart the per-query values of one metric per system: a box plot and jittered points.

    Parameters
    ----------
    result
        An :class:`~rankset.evaluation.EvaluationResult` or its ``per_query`` frame.
    metric
        The metric (canonical name or an alias, e.g. ``"ndcg_cut_10"``).
    colors
        Colour scale for systems (default: :func:`system_colors` of the systems shown).
    max_rows
        Most rows to inline (one per system and query).

    Returns
    -------
    altair.LayerChart
        Systems on the y axis; NA values are left out (counted in the subtitle). Points
        are spread vertically by a deterministic jitter; the tooltip names the query.

    Examples
    --------
    >>> import polars as pl
    >>> per_query = pl.DataFrame(
    ...     {"system": "s", "query_id": ["q1", "q2"], "metric": "ap", "value": [0.1, None]}
    ... )
    >>> spec = distribution_chart(per_query, "ap").to_dict()
    >>> len(spec["data"]["values"]), spec["title"]["subtitle"]
    (1, '1 NA value not shown')
    """
    frame = _frame(result, "per_query", ("system", "query_id", "metric", "value"), "result")
    name = _resolve(metric, _unique(frame, "metric"), "result")
    frame = frame.filter(pl.col("metric") == name)
    frame = frame.with_columns(pl.col("value").cast(pl.Float64))
    n_na: int = frame.select((pl.col("value").is_null() | pl.col("value").is_nan()).sum()).item()
    frame = (
        frame.filter(pl.col("value").is_not_null() & pl.col("value").is_not_nan())
        .sort("system", "query_id")
        .with_columns(
            # Golden-ratio sequence: evenly spread, deterministic, independent of the values.
            ((pl.int_range(pl.len()).over("system") * 0.6180339887) % 1.0 - 0.5).alias("jitter")
        )
        .select("system", "query_id", "metric", "value", "jitter")
    )
    systems = sorted(_unique(frame, "system"))
    scale = colors or system_colors(systems)
    y = alt.Y("system:N", title=None, sort=systems)
    x = alt.X("value:Q", title=name)
    box = (
        alt.Chart()
        .mark_boxplot(extent=1.5, size=26, opacity=0.35, outliers=False, median={"color": "black"})
        .encode(y=y, x=x, color=alt.Color("system:N", scale=scale, legend=None))
    )
    points = (
        alt.Chart()
        .mark_point(filled=True, size=22, opacity=0.7)
        .encode(
            y=y,
            x=x,
            yOffset=alt.YOffset("jitter:Q", scale=alt.Scale(domain=[-1.0, 1.0])),
            color=alt.Color("system:N", scale=scale, title="system"),
            tooltip=[
                alt.Tooltip("query_id:N", title="query"),
                alt.Tooltip("system:N"),
                alt.Tooltip("value:Q", title=name, format=_FLOAT),
            ],
        )
    )
    subtitle = f"{n_na} NA value{'s' if n_na != 1 else ''} not shown" if n_na else ""
    return alt.layer(box, points, data=_data(frame, max_rows, "distribution")).properties(
        width=420, height=alt.Step(56), title=_title(f"{name} per query", subtitle)
    )


def difference_chart(
    result: EvaluationResult | pl.DataFrame,
    metric: str,
    baseline: str,
    *,
    colors: alt.Scale | None = None,
    max_rows: int = MAX_ROWS,
) -> alt.TopLevelMixin:
    """Chart the per-query difference from a baseline, one panel per system.

    ``delta = value - baseline value`` for every query both have (not NA); bars are sorted
    best first and coloured win/tie/loss by the metric's direction (for ``harm@k`` a lower
    value wins; a tie is exactly equal values, as in :func:`rankset.compare`).

    Parameters
    ----------
    result
        An :class:`~rankset.evaluation.EvaluationResult` or its ``per_query`` frame.
    metric
        The metric (canonical name or alias).
    baseline
        The system every other system is compared with.
    colors
        Unused by the bars (coloured by outcome); accepted for a uniform builder interface.
    max_rows
        Most rows to inline (one per compared system and query).

    Returns
    -------
    altair.FacetChart
        Faceted by ``system`` (rows); each panel orders its own queries. Query ids label
        the x axis up to 60 queries; above that the tooltip names them.

    Examples
    --------
    >>> import polars as pl
    >>> per_query = pl.DataFrame(
    ...     {
    ...         "system": ["base", "base", "new", "new"],
    ...         "query_id": ["q1", "q2", "q1", "q2"],
    ...         "metric": "harm@5",
    ...         "value": [0.2, 0.0, 0.0, 0.2],
    ...     }
    ... )
    >>> spec = difference_chart(per_query, "harm@5", "base").to_dict()
    >>> sorted((row["query_id"], row["outcome"]) for row in spec["data"]["values"])
    [('q1', 'win'), ('q2', 'loss')]
    """
    del colors  # bars are coloured by outcome
    frame = _frame(result, "per_query", ("system", "query_id", "metric", "value"), "result")
    name = _resolve(metric, _unique(frame, "metric"), "result")
    frame = frame.filter(pl.col("metric") == name)
    systems = _unique(frame, "system")
    if baseline not in systems:
        msg = f"The baseline {baseline!r} is not a system of the result (systems: "
        msg += f"{', '.join(systems)})." + _did_you_mean(baseline, systems)
        raise ParameterError(msg)
    if len(systems) < 2:
        msg = f"difference_chart needs a system besides the baseline {baseline!r}."
        raise ParameterError(msg)
    higher = _greater_is_better(name, strict=True)
    valid = pl.col("value").is_not_null() & pl.col("value").is_not_nan()
    base = frame.filter((pl.col("system") == baseline) & valid).select(
        "query_id", pl.col("value").alias("baseline_value")
    )
    value, base_value = pl.col("value"), pl.col("baseline_value")
    better = (value > base_value) if higher else (value < base_value)
    pairs = (
        frame.filter((pl.col("system") != baseline) & valid)
        .join(base, on="query_id", how="inner")
        .with_columns((value - base_value).alias("delta"))
        .with_columns(
            pl.when(value == base_value)
            .then(pl.lit("tie"))
            .when(better)
            .then(pl.lit("win"))
            .otherwise(pl.lit("loss"))
            .alias("outcome")
        )
        .select("system", "query_id", "value", "baseline_value", "delta", "outcome")
        .sort("system", "delta", "query_id", descending=[False, higher, False])
    )
    n_queries = pairs.group_by("system").len()["len"].max() if pairs.height else 0
    show_labels = isinstance(n_queries, int) and n_queries <= 60
    direction = "higher" if higher else "lower"
    bars = (
        alt.Chart()
        .mark_bar()
        .encode(
            x=alt.X(
                "query_id:N",
                sort=alt.EncodingSortField(
                    "delta", op="min", order="descending" if higher else "ascending"
                ),
                title=f"queries, best for the system first ({direction} {name} is better)",
                axis=alt.Axis(labels=show_labels, ticks=show_labels, labelAngle=-90),
            ),
            y=alt.Y("delta:Q", title=f"Δ {name} vs {baseline}"),
            color=alt.Color(
                "outcome:N",
                scale=alt.Scale(domain=list(_OUTCOMES), range=list(_OUTCOME_COLORS)),
                title="outcome",
            ),
            tooltip=[
                alt.Tooltip("query_id:N", title="query"),
                alt.Tooltip("system:N"),
                alt.Tooltip("value:Q", title=name, format=_FLOAT),
                alt.Tooltip("baseline_value:Q", title=f"{name} ({baseline})", format=_FLOAT),
                alt.Tooltip("delta:Q", title="Δ", format=_FLOAT),
                alt.Tooltip("outcome:N"),
            ],
        )
        .properties(width=alt.Step(12) if show_labels else 560, height=180)
    )
    others = sorted(s for s in systems if s != baseline)
    chart: alt.TopLevelMixin = (
        bars.properties(data=_data(pairs, max_rows, "difference"))
        .facet(
            row=alt.Row(
                "system:N",
                title=None,
                sort=others,
                header=_header(labelAngle=0, labelAlign="left"),
            )
        )
        .resolve_scale(x="independent")
        .properties(
            title=_title(
                f"{name}: per-query difference from {baseline}",
                f"Δ = system − {baseline}; {direction} {name} is better",
            )
        )
    )
    return chart


def diagnostic_scatter(
    diagnosis: Diagnosis | pl.DataFrame,
    *,
    thresholds: Mapping[str, float] | None = None,
    max_rows: int = MAX_ROWS,
) -> alt.TopLevelMixin:
    """Chart every query's PROC@K (x) against %PROC@K (y), one panel per system.

    Colour is the quadrant; dashed rules mark the thresholds and grey labels name the four
    regions. A query with ``proc == 0`` has no %PROC (NA): it is drawn at y = 0 as a cross
    (a "retrieval miss"). Unclassifiable queries (``proc`` NA) cannot be placed and are
    counted in the subtitle.

    Parameters
    ----------
    diagnosis
        A :class:`~rankset.diagnosis.Diagnosis` or its ``per_query`` frame.
    thresholds
        ``{"proc": ..., "pct_proc": ...}``; default: the diagnosis's own, or 0.5 and 0.5
        (the defaults of :func:`rankset.diagnose`) for a bare frame.
    max_rows
        Most rows to inline.

    Returns
    -------
    altair.FacetChart

    Examples
    --------
    >>> import polars as pl
    >>> per_query = pl.DataFrame(
    ...     {
    ...         "system": "s",
    ...         "query_id": ["q1", "q2"],
    ...         "k": 5,
    ...         "ra_nwg": [0.9, 0.0],
    ...         "proc": [1.0, 0.0],
    ...         "pct_proc": [0.9, None],
    ...         "quadrant": ["healthy", "retrieval miss"],
    ...     }
    ... )
    >>> spec = diagnostic_scatter(per_query, thresholds={"proc": 0.4, "pct_proc": 0.6}).to_dict()
    >>> [layer["mark"]["type"] for layer in spec["spec"]["layer"]]
    ['rule', 'rule', 'text', 'point']
    """
    frame = _frame(
        diagnosis,
        "per_query",
        ("system", "query_id", "proc", "pct_proc", "quadrant"),
        "diagnosis",
    )
    limits = _thresholds(diagnosis, thresholds)
    k = _cutoff(frame)
    n_unplaced = frame.filter(pl.col("proc").is_null() | pl.col("proc").is_nan()).height
    placed = frame.filter(pl.col("proc").is_not_null() & pl.col("proc").is_not_nan())
    pct_missing = pl.col("pct_proc").is_null() | pl.col("pct_proc").is_nan()
    placed = placed.with_columns(
        pl.when(pct_missing).then(0.0).otherwise(pl.col("pct_proc")).alias("pct_proc_shown"),
        pl.when(pct_missing)
        .then(pl.lit(_NA_STATUS[1]))
        .otherwise(pl.lit(_NA_STATUS[0]))
        .alias("pct_proc_status"),
    )
    x_title, y_title = f"PROC@{k}", f"%PROC@{k}"
    unit = alt.Scale(domain=[0.0, 1.0], nice=False)
    proc_rule = (
        alt.Chart(_inline([{"threshold": limits["proc"]}]))
        .mark_rule(color="#777777", strokeDash=[5, 4])
        .encode(x=alt.X("threshold:Q", scale=unit, title=x_title))
    )
    pct_rule = (
        alt.Chart(_inline([{"threshold": limits["pct_proc"]}]))
        .mark_rule(color="#777777", strokeDash=[5, 4])
        .encode(y=alt.Y("threshold:Q", scale=unit, title=y_title))
    )
    labels = (
        alt.Chart(_inline(_quadrant_labels(limits["proc"], limits["pct_proc"])))
        .mark_text(color="#555555", fontSize=11, fontStyle="italic", baseline="top", dy=4)
        .encode(
            x=alt.X("x:Q", scale=unit, title=x_title),
            y=alt.Y("y:Q", scale=unit, title=y_title),
            text=alt.Text("label:N"),
        )
    )
    points = (
        alt.Chart()
        .mark_point(filled=True, size=48, opacity=0.8)
        .encode(
            x=alt.X("proc:Q", scale=unit, title=x_title),
            y=alt.Y("pct_proc_shown:Q", scale=unit, title=y_title),
            color=alt.Color(
                "quadrant:N",
                scale=alt.Scale(domain=list(QUADRANTS), range=list(_QUADRANT_COLORS)),
                title="quadrant",
            ),
            shape=alt.Shape(
                "pct_proc_status:N",
                scale=alt.Scale(domain=list(_NA_STATUS), range=["circle", "cross"]),
                title="%PROC",
            ),
            tooltip=[
                alt.Tooltip("query_id:N", title="query"),
                alt.Tooltip("system:N"),
                *_tooltip(placed, ["ra_nwg", "proc", "pct_proc"]),
                alt.Tooltip("quadrant:N"),
            ],
        )
    )
    subtitle = [f"dashed: thresholds PROC = {limits['proc']:g}, %PROC = {limits['pct_proc']:g}"]
    if n_unplaced:
        subtitle.append(f"{n_unplaced} unclassifiable (system, query) pairs not shown")
    return (
        alt.layer(proc_rule, pct_rule, labels, points, data=_data(placed, max_rows, "diagnosis"))
        .properties(width=280, height=280)
        .facet(
            column=alt.Column(
                "system:N", title=None, sort=sorted(_unique(placed, "system")), header=_header()
            )
        )
        .properties(title=_title(f"Retrieval vs reranking at K = {k}", subtitle))
    )


def diagnostic_heatmap(
    diagnosis: Diagnosis | pl.DataFrame,
    *,
    max_rows: int = MAX_ROWS,
) -> alt.TopLevelMixin:
    """Chart the 2×2 quadrant counts per system (x: PROC low/high, y: %PROC low/high).

    Parameters
    ----------
    diagnosis
        A :class:`~rankset.diagnosis.Diagnosis`, its ``counts`` frame (``system, quadrant,
        n_queries[, share]``) or its ``per_query`` frame (counted here).
    max_rows
        Most rows to inline.

    Returns
    -------
    altair.FacetChart
        Faceted by ``system`` (columns); each cell shows its quadrant, count and share.
        Unclassifiable queries are counted in the subtitle.

    Examples
    --------
    >>> import polars as pl
    >>> counts = pl.DataFrame(
    ...     {
    ...         "system": "s",
    ...         "quadrant": ["healthy", "retrieval miss", "reranking miss", "both"],
    ...         "n_queries": [5, 1, 2, 0],
    ...     }
    ... )
    >>> spec = diagnostic_heatmap(counts).to_dict()
    >>> [layer["mark"]["type"] for layer in spec["spec"]["layer"]]
    ['rect', 'text', 'text']
    """
    counts, k, limits = _heatmap_counts(diagnosis)
    n_unclassified = int(counts.filter(pl.col("quadrant").is_null())["n_queries"].sum())
    counts = counts.filter(pl.col("quadrant").is_in(list(QUADRANTS)))
    levels = {
        "healthy": ("high", "high"),
        "retrieval miss": ("low", "high"),
        "reranking miss": ("high", "low"),
        "both": ("low", "low"),
    }
    counts = counts.with_columns(
        pl.col("quadrant")
        .replace_strict({q: p for q, (p, _) in levels.items()})
        .alias("proc_level"),
        pl.col("quadrant")
        .replace_strict({q: c for q, (_, c) in levels.items()})
        .alias("pct_level"),
        pl.when(pl.col("share").is_null())
        .then(pl.col("n_queries").cast(pl.String))
        .otherwise(
            pl.format(
                "{} ({}%)",
                pl.col("n_queries"),
                (pl.col("share") * 100).round(0).cast(pl.Int64),
            )
        )
        .alias("label"),
    )
    top: int = counts.select(pl.col("n_queries").max().fill_null(0)).item()
    k_text = "K" if k is None else str(k)
    x_title = f"PROC@{k_text}" + (f" (threshold {limits['proc']:g})" if limits else "")
    y_title = f"%PROC@{k_text}" + (f" (threshold {limits['pct_proc']:g})" if limits else "")
    encode_xy = {
        "x": alt.X(
            "proc_level:N", sort=["low", "high"], title=x_title, axis=alt.Axis(labelAngle=0)
        ),
        "y": alt.Y("pct_level:N", sort=["high", "low"], title=y_title),
    }
    rect = (
        alt.Chart()
        .mark_rect(stroke="white", strokeWidth=2)
        .encode(
            **encode_xy,
            color=alt.Color(
                "n_queries:Q",
                scale=alt.Scale(scheme="blues", domain=[0, max(top, 1)]),
                title="queries",
            ),
            tooltip=[
                alt.Tooltip("system:N"),
                alt.Tooltip("quadrant:N"),
                alt.Tooltip("n_queries:Q", title="queries"),
                alt.Tooltip("share:Q", format=".1%"),
            ],
        )
    )
    dark = alt.datum.n_queries > top * 0.55
    name = (
        alt.Chart()
        .mark_text(fontSize=11, dy=-9)
        .encode(
            **encode_xy,
            text=alt.Text("quadrant:N"),
            color=alt.condition(dark, alt.value("white"), alt.value("#333333")),
        )
    )
    count = (
        alt.Chart()
        .mark_text(fontSize=15, fontWeight="bold", dy=9)
        .encode(
            **encode_xy,
            text=alt.Text("label:N"),
            color=alt.condition(dark, alt.value("white"), alt.value("black")),
        )
    )
    subtitle = (
        f"{n_unclassified} unclassifiable (system, query) pairs not counted"
        if n_unclassified
        else ""
    )
    return (
        alt.layer(rect, name, count, data=_data(counts, max_rows, "diagnosis counts"))
        .properties(width=220, height=180)
        .facet(
            column=alt.Column(
                "system:N", title=None, sort=sorted(_unique(counts, "system")), header=_header()
            )
        )
        .properties(title=_title(f"Diagnostic matrix at K = {k_text}", subtitle))
    )


# --- export ------------------------------------------------------------------------------


def save_chart(
    chart: alt.TopLevelMixin,
    path: str | os.PathLike[str],
    *,
    format: ChartFormat | None = None,
    scale: float = 2.0,
) -> Path:
    """Write a chart as self-contained HTML, PNG, SVG or Vega-Lite JSON, atomically.

    Parameters
    ----------
    chart
        Any Altair chart.
    path
        Destination file.
    format
        ``"html"``, ``"png"``, ``"svg"`` or ``"json"``; default: from the extension
        (``.html``/``.htm``, ``.png``, ``.svg``, ``.json``).
    scale
        Pixel density of a PNG (2.0 = twice the chart's size in CSS pixels).

    Returns
    -------
    pathlib.Path
        The written file.

    Raises
    ------
    ParameterError
        On an unknown format or extension, or ``scale <= 0``.
    MissingDependencyError
        For HTML, PNG or SVG without vl-convert (``pip install "rankset[render]"``).

    Examples
    --------
    >>> import tempfile, altair as alt
    >>> chart = alt.Chart(alt.Data(values=[{"a": 1}])).mark_point().encode(x="a:Q")
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     out = save_chart(chart, Path(folder) / "chart.json")
    ...     json.loads(out.read_text())["mark"]
    {'type': 'point'}
    """
    target = Path(path)
    fmt = _format(target, format)
    if not (isinstance(scale, int | float) and not isinstance(scale, bool) and scale > 0):
        msg = f"The 'scale' parameter of save_chart must be a number > 0. Got {scale!r} instead."
        raise ParameterError(msg)
    spec = chart.to_dict()
    payload: str | bytes
    if fmt == "json":
        payload = json.dumps(spec, indent=2, allow_nan=False)
    else:
        vlc = _vl_convert(fmt)
        if fmt == "html":
            payload = _page(spec, javascript_bundle())
        elif fmt == "svg":
            payload = vlc.vegalite_to_svg(spec, vl_version=_vl_version())
        else:
            payload = vlc.vegalite_to_png(spec, vl_version=_vl_version(), scale=float(scale))
    with atomic_path(target) as temp:
        if isinstance(payload, bytes):
            temp.write_bytes(payload)
        else:
            temp.write_text(payload, encoding="utf-8")
    return target


@functools.cache
def javascript_bundle() -> str:
    """Return the Vega, Vega-Lite and vega-embed JavaScript as one script (cached).

    The bundle (about 0.9 MB, from vl-convert, for Altair's Vega-Lite version) defines
    ``window.vegaEmbed``; put it once in a page inside ``<script>...</script>``, then one
    :func:`embed_fragment` per chart.

    Raises
    ------
    MissingDependencyError
        Without vl-convert (``pip install "rankset[render]"``).
    """
    vlc = _vl_convert("html")
    bundle: str = vlc.javascript_bundle(vl_version=_vl_version())
    # Inside a <script> element only "</script" ends it; "<\/script" means the same in
    # JavaScript strings and regular expressions.
    return re.sub(r"</(script)", r"<\\/\1", bundle, flags=re.IGNORECASE)


def embed_fragment(chart: alt.TopLevelMixin | Mapping[str, Any], element_id: str) -> str:
    r"""Return a ``<div>`` and a ``<script>`` that draw ``chart`` into it with vegaEmbed.

    The page must load :func:`javascript_bundle` before the fragment. The spec is written
    as JSON with ``<``, ``>`` and ``&`` escaped (``\u003c``...), so no string in the data
    (a query id, a system name) can close the script element.

    Parameters
    ----------
    chart
        An Altair chart or a Vega-Lite spec (dict).
    element_id
        The div's id: a letter, then letters, digits, ``-`` or ``_``; unique in the page.

    Returns
    -------
    str

    Examples
    --------
    >>> import altair as alt
    >>> data = alt.Data(values=[{"q": "</script>"}])
    >>> chart = alt.Chart(data).mark_point().encode(x="q:N")
    >>> fragment = embed_fragment(chart, "chart-1")
    >>> fragment.splitlines()[0]
    '<div id="chart-1" class="rankset-chart"></div>'
    >>> fragment.count("</script>")
    1
    """
    if not (isinstance(element_id, str) and _ELEMENT_ID.match(element_id)):
        msg = (
            "The 'element_id' parameter of embed_fragment must start with a letter and hold "
            f"only letters, digits, '-' and '_'. Got {element_id!r} instead."
        )
        raise ParameterError(msg)
    spec = chart.to_dict() if isinstance(chart, alt.TopLevelMixin) else dict(chart)
    return (
        f'<div id="{element_id}" class="rankset-chart"></div>\n'
        '<script type="text/javascript">\n'
        f'vegaEmbed(document.getElementById("{element_id}"), {_script_json(spec)}, '
        f"{_script_json(_EMBED_OPTIONS)}).catch(console.error);\n"
        "</script>"
    )


def inline_html(chart: alt.TopLevelMixin, *, element_id: str | None = None) -> str:
    """Return a self-contained HTML fragment: the JavaScript bundle and one embedded chart.

    For one chart in a page. For several, include :func:`javascript_bundle` once and one
    :func:`embed_fragment` per chart, each with its own id.

    Parameters
    ----------
    chart
        Any Altair chart.
    element_id
        The div's id; default ``rankset-chart-`` and a hash of the spec.

    Returns
    -------
    str

    Raises
    ------
    MissingDependencyError
        Without vl-convert (``pip install "rankset[render]"``).
    """
    spec = chart.to_dict()
    if element_id is None:
        digest = hashlib.sha256(json.dumps(spec, sort_keys=True).encode()).hexdigest()[:12]
        element_id = f"rankset-chart-{digest}"
    return f'<script type="text/javascript">\n{javascript_bundle()}\n</script>\n' + embed_fragment(
        spec, element_id
    )


# --- helpers -----------------------------------------------------------------------------


def _frame(obj: Any, attribute: str | None, columns: Sequence[str], what: str) -> pl.DataFrame:
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
    _require(obj, columns, what)
    return obj


def _require(frame: pl.DataFrame, columns: Sequence[str], what: str) -> None:
    missing = [name for name in columns if name not in frame.columns]
    if missing:
        msg = (
            f"The {what} frame lacks column(s) {', '.join(map(repr, missing))}; expected "
            f"{', '.join(columns)} (got {', '.join(frame.columns)})."
        )
        raise SchemaError(msg)


def _unique(frame: pl.DataFrame, column: str) -> list[str]:
    return [str(v) for v in frame[column].drop_nulls().unique(maintain_order=True).to_list()]


def _resolve(name: str, present: list[str], what: str) -> str:
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
    raise ParameterError(msg + _did_you_mean(name, present))


def _did_you_mean(name: str, choices: Sequence[str]) -> str:
    close = difflib.get_close_matches(name, list(choices), n=1)
    return f" Did you mean {close[0]!r}?" if close else ""


def _greater_is_better(name: str, *, strict: bool) -> bool:
    try:
        return parse_metric(name).spec.greater_is_better
    except UnknownMetricError:
        if not strict:
            return True
        msg = (
            f"Cannot tell whether a higher {name!r} is better: it is not a known metric "
            "name, so wins and losses cannot be oriented."
        )
        raise ParameterError(msg) from None


def _check_int(name: str, value: object, low: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        msg = f"The '{name}' parameter must be an int >= {low}. Got {value!r} instead."
        raise ParameterError(msg)


def _data(frame: pl.DataFrame, max_rows: int, what: str) -> alt.Data:
    _check_int("max_rows", max_rows, 1)
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
    return _inline(frame.to_dicts())


def _inline(rows: list[dict[str, Any]]) -> alt.Data:
    return alt.Data(values=rows)  # type: ignore[no-untyped-call]


def _tooltip(frame: pl.DataFrame, columns: Sequence[str]) -> list[alt.Tooltip]:
    tips = []
    for name in columns:
        if name not in frame.columns:
            continue
        dtype = frame.schema[name]
        if dtype.is_float():
            fmt = ".3g" if name in ("p", "p_adj") else _FLOAT
            tips.append(alt.Tooltip(f"{name}:Q", format=fmt))
        elif dtype.is_numeric():
            tips.append(alt.Tooltip(f"{name}:Q"))
        else:
            tips.append(alt.Tooltip(f"{name}:N"))
    return tips


def _header(**options: Any) -> alt.Header:
    # Readable without the theme; the theme's header config cannot override explicit sizes,
    # so these match it.
    return alt.Header(labelFontSize=13, **options)


def _title(text: str, subtitle: str | Sequence[str] = "") -> alt.Title:
    if subtitle:
        return alt.Title(text, subtitle=subtitle)
    return alt.Title(text)


def _thresholds(diagnosis: Any, given: Mapping[str, float] | None) -> dict[str, float]:
    own = getattr(diagnosis, "thresholds", None)
    limits = dict(own) if isinstance(own, Mapping) else {"proc": 0.5, "pct_proc": 0.5}
    if given is not None:
        unknown = sorted(set(given) - {"proc", "pct_proc"})
        if unknown:
            msg = (
                "The 'thresholds' parameter takes the keys 'proc' and 'pct_proc'. "
                f"Got {unknown} instead."
            )
            raise ParameterError(msg)
        limits.update(given)
    for key in ("proc", "pct_proc"):
        value = limits.get(key)
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not math.isfinite(value)
            or not 0 <= value <= 1
        ):
            msg = f"The '{key}' threshold must be a number in [0, 1]. Got {value!r} instead."
            raise ParameterError(msg)
        limits[key] = float(value)
    return limits


def _quadrant_labels(proc: float, pct: float) -> list[dict[str, Any]]:
    low_x, high_x = proc / 2, (1 + proc) / 2
    return [
        {"label": "healthy", "x": high_x, "y": 1.0},
        {"label": "retrieval miss", "x": low_x, "y": 1.0},
        {"label": "reranking miss", "x": high_x, "y": pct},
        {"label": "both", "x": low_x, "y": pct},
    ]


def _cutoff(frame: pl.DataFrame) -> str:
    if "k" not in frame.columns:
        return "K"
    ks = frame["k"].drop_nulls().unique().sort().to_list()
    return str(ks[0]) if len(ks) == 1 else "K"


def _heatmap_counts(diagnosis: Any) -> tuple[pl.DataFrame, str | None, dict[str, float] | None]:
    k: str | None = None
    limits: dict[str, float] | None = None
    if isinstance(diagnosis, Diagnosis):
        k = _cutoff(diagnosis.per_query)
        limits = dict(diagnosis.thresholds)
        frame = diagnosis.counts
    else:
        frame = _frame(diagnosis, None, ("system", "quadrant"), "diagnosis")
        if "n_queries" not in frame.columns:
            # A per-query frame: count it (zeros included, as in Diagnosis.counts).
            k = _cutoff(frame)
            systems = pl.DataFrame({"system": _unique(frame, "system")})
            grid = systems.join(
                pl.DataFrame({"quadrant": [*QUADRANTS, None]}, schema={"quadrant": pl.String}),
                how="cross",
            )
            counted = frame.group_by("system", "quadrant").len("n_queries")
            frame = grid.join(counted, on=["system", "quadrant"], how="left", nulls_equal=True)
            frame = frame.with_columns(pl.col("n_queries").fill_null(0))
    if "share" not in frame.columns:
        classified = pl.col("n_queries").filter(pl.col("quadrant").is_not_null()).sum()
        frame = frame.with_columns(
            pl.when(pl.col("quadrant").is_not_null() & (classified.over("system") > 0))
            .then(pl.col("n_queries") / classified.over("system"))
            .otherwise(None)
            .alias("share")
        )
    frame = frame.select(
        "system", "quadrant", pl.col("n_queries").cast(pl.Int64), pl.col("share").cast(pl.Float64)
    )
    return frame, k, limits


def _format(path: Path, format: ChartFormat | None) -> ChartFormat:
    if format is not None:
        if format not in get_args(ChartFormat):
            msg = (
                "The 'format' parameter of save_chart must be one of "
                f"{', '.join(get_args(ChartFormat))} or None. Got {format!r} instead."
            )
            raise ParameterError(msg)
        return format
    suffix = path.suffix.lower()
    if suffix not in _EXTENSIONS:
        msg = (
            f"Cannot tell the chart format from {path.name!r}: use one of the extensions "
            f"{', '.join(_EXTENSIONS)} or pass format=."
        )
        raise ParameterError(msg)
    return _EXTENSIONS[suffix]


def _vl_convert(fmt: str) -> ModuleType:
    try:
        import vl_convert
    except ImportError:
        msg = (
            f'Saving a chart as {fmt} needs vl-convert: pip install "rankset[render]" '
            "(or pip install vl-convert-python)."
        )
        raise MissingDependencyError(msg) from None
    return vl_convert


@functools.cache
def _vl_version() -> str | None:
    """Altair's Vega-Lite version as vl-convert names it (e.g. ``"6.4"``), if it has it."""
    major_minor = ".".join(alt.SCHEMA_VERSION.lstrip("v").split(".")[:2])
    known: list[str] = _vl_convert("html").get_vegalite_versions()
    return major_minor if major_minor in known else None


def _script_json(value: Any) -> str:
    text = json.dumps(value, allow_nan=False, separators=(",", ":"))
    for char, escaped in _SCRIPT_ESCAPES.items():
        text = text.replace(char, escaped)
    return text


def _page(spec: Mapping[str, Any], bundle: str) -> str:
    title = spec.get("title")
    if isinstance(title, Mapping):
        title = title.get("text")
    heading = html.escape(title if isinstance(title, str) else "rankset chart")
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{heading}</title>\n"
        f'<script type="text/javascript">\n{bundle}\n</script>\n'
        "</head>\n<body>\n"
        f"{embed_fragment(spec, 'rankset-chart')}\n"
        "</body>\n</html>\n"
    )


register_theme()
