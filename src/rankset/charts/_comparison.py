"""Charts of systems against a baseline: :func:`rankset.compare`'s frame, per-query deltas.

Wins, ties and losses are oriented by the metric's direction from the measure registry
(for ``harm@k`` a lower value wins), the rule :func:`rankset.compare` counts by.
"""

from __future__ import annotations

import json
from typing import Final

import altair as alt
import polars as pl

from rankset._validation import did_you_mean
from rankset.charts._common import (
    MAX_ROWS,
    VALUE_FORMAT,
    header,
    inline_frame,
    resolve_metric,
    title,
    to_frame,
    tooltip,
    unique,
)
from rankset.charts._theme import system_colors
from rankset.comparison.pairwise import COMPARE_COLUMNS, higher_is_better, paired_outcome
from rankset.errors import ParameterError
from rankset.evaluation import EvaluationResult

__all__ = ["comparison_chart", "difference_chart"]

_OUTCOMES: Final = ("win", "tie", "loss")
_OUTCOME_COLORS: Final = ("#0072B2", "#BBBBBB", "#D55E00")


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
    frame = to_frame(comparison, None, columns, "comparison")
    tests = unique(frame, "test")
    if test not in tests:
        msg = f"The comparison frame has no rows for test {test!r} (tests: {', '.join(tests)})."
        msg += did_you_mean(test, tests)
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
    metrics = unique(frame, "metric")
    systems = unique(frame, "system")  # in the order of the inputs
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
        tooltip=tooltip(
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
        alt.layer(zero, bars, points, data=inline_frame(frame, max_rows, "comparison"))
        .properties(width=360, height=alt.Step(26))
        .facet(
            row=alt.Row(
                "metric:N",
                title=None,
                sort=metrics,
                header=header(labelAngle=0, labelAlign="left", labelExpr=label_expr),
            )
        )
        .resolve_scale(x="independent")
        .properties(
            title=title(
                "Difference from the baseline",
                f"{test} test; filled point: significant after correction; bar: CI of Δ",
            )
        )
    )
    return chart


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
    frame = to_frame(result, "per_query", ("system", "query_id", "metric", "value"), "result")
    name = resolve_metric(metric, unique(frame, "metric"), "result")
    frame = frame.filter(pl.col("metric") == name)
    systems = unique(frame, "system")
    if baseline not in systems:
        msg = f"The baseline {baseline!r} is not a system of the result (systems: "
        msg += f"{', '.join(systems)})." + did_you_mean(baseline, systems)
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
    pairs = (
        frame.filter((pl.col("system") != baseline) & valid)
        .join(base, on="query_id", how="inner")
        .with_columns((value - base_value).alias("delta"))
        .with_columns(paired_outcome(value, base_value, higher))
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
                alt.Tooltip("value:Q", title=name, format=VALUE_FORMAT),
                alt.Tooltip("baseline_value:Q", title=f"{name} ({baseline})", format=VALUE_FORMAT),
                alt.Tooltip("delta:Q", title="Δ", format=VALUE_FORMAT),
                alt.Tooltip("outcome:N"),
            ],
        )
        .properties(width=alt.Step(12) if show_labels else 560, height=180)
    )
    others = sorted(s for s in systems if s != baseline)
    chart: alt.TopLevelMixin = (
        bars.properties(data=inline_frame(pairs, max_rows, "difference"))
        .facet(
            row=alt.Row(
                "system:N",
                title=None,
                sort=others,
                header=header(labelAngle=0, labelAlign="left"),
            )
        )
        .resolve_scale(x="independent")
        .properties(
            title=title(
                f"{name}: per-query difference from {baseline}",
                f"Δ = system − {baseline}; {direction} {name} is better",
            )
        )
    )
    return chart


def _greater_is_better(name: str, *, strict: bool) -> bool:
    try:
        return higher_is_better(name)
    except ParameterError:
        if strict:
            raise
        return True
