"""The chart of a suite: systems × collections, the metric as colour, the rank as text."""

from __future__ import annotations

from typing import Any

import altair as alt
import polars as pl

from rankset.charts._common import (
    MAX_ROWS,
    VALUE_FORMAT,
    inline_frame,
    resolve_metric,
    title,
    to_frame,
    unique,
)
from rankset.comparison import higher_is_better
from rankset.comparison.suites import SuiteResult

__all__ = ["suite_heatmap"]

_COLUMNS = ("collection", "system", "metric", "mean", "rank")


def suite_heatmap(
    suite: SuiteResult | pl.DataFrame,
    metric: str | None = None,
    *,
    max_rows: int = MAX_ROWS,
) -> alt.TopLevelMixin:
    """Chart one metric of :func:`rankset.comparison.evaluate_suite` as a heatmap.

    Parameters
    ----------
    suite
        A :class:`~rankset.comparison.SuiteResult` or its ``per_collection`` frame.
    metric
        The metric (canonical name or an alias); by default the first.
    max_rows
        Most cells to inline.

    Returns
    -------
    altair.LayerChart
        A row per system (best mean rank first: the order of ``suite.aggregate``), a
        column per collection in the suite's order. A cell's colour is the system's mean
        on the collection (darker = better; reversed for metrics where lower is better);
        its text is the system's rank on that collection (1 = best, ties share the
        average rank; a dash for a system missing from some collection, whose cell is
        blank on the collections without it).

    Examples
    --------
    >>> frame = pl.DataFrame(
    ...     {"collection": ["c1", "c1", "c2", "c2"], "system": ["a", "b", "a", "b"],
    ...      "metric": "rr", "mean": [0.9, 0.5, 0.4, 0.6], "rank": [1.0, 2.0, 2.0, 1.0]}
    ... )
    >>> spec = suite_heatmap(frame).to_dict()
    >>> [layer["mark"]["type"] for layer in spec["layer"]]
    ['rect', 'text']
    >>> spec["layer"][0]["encoding"]["x"]["sort"]
    ['c1', 'c2']
    """
    frame = to_frame(suite, "per_collection", _COLUMNS, "suite")
    metric = resolve_metric(metric or unique(frame, "metric")[0], unique(frame, "metric"), "suite")
    rows = frame.filter(pl.col("metric") == metric)
    collections = (
        suite.collections if isinstance(suite, SuiteResult) else unique(rows, "collection")
    )
    if isinstance(suite, SuiteResult):
        systems = unique(suite.aggregate.filter(pl.col("metric") == metric), "system")
    else:  # the frame's order of mean ranks (systems without a rank last)
        order = rows.group_by("system", maintain_order=True).agg(pl.col("rank").mean())
        systems = unique(order.sort("rank", nulls_last=True, maintain_order=True), "system")
    greater = higher_is_better(metric)
    means = [float(v) for v in rows["mean"].drop_nulls().drop_nans().to_list()]
    low, high = (min(means), max(means)) if means else (0.0, 1.0)
    middle = (low + high) / 2
    rows = rows.with_columns(
        rank_text=pl.when(pl.col("rank").is_null())
        .then(pl.lit("–"))
        .when(pl.col("rank") == pl.col("rank").round(0))
        .then(pl.col("rank").cast(pl.Int64).cast(pl.String))
        .otherwise(pl.col("rank").round(1).cast(pl.String)),
        dark=(pl.col("mean") > middle) if greater else (pl.col("mean") < middle),
    )
    cells = rows.select(
        "collection", "system", "mean", "rank", "rank_text", "dark",
        *(c for c in ("ci_low", "ci_high", "n_queries") if c in rows.columns),
    )  # fmt: skip
    tips: list[Any] = [
        alt.Tooltip("system:N"),
        alt.Tooltip("collection:N"),
        alt.Tooltip("mean:Q", format=VALUE_FORMAT, title=metric),
        alt.Tooltip("rank:Q", title="rank (1 = best)"),
    ]
    if "ci_low" in cells.columns:
        tips += [
            alt.Tooltip("ci_low:Q", format=VALUE_FORMAT, title="CI from"),
            alt.Tooltip("ci_high:Q", format=VALUE_FORMAT, title="CI to"),
        ]
    if "n_queries" in cells.columns:
        tips.append(alt.Tooltip("n_queries:Q", title="queries"))
    base = alt.Chart(inline_frame(cells, max_rows, "suite")).encode(
        x=alt.X("collection:N", sort=collections, title=None, axis=alt.Axis(labelAngle=-30)),
        y=alt.Y("system:N", sort=systems, title=None),
    )
    heat = base.mark_rect().encode(
        color=alt.Color(
            "mean:Q",
            scale=alt.Scale(scheme="blues", reverse=not greater),
            title=metric,
        ),
        tooltip=tips,
    )
    text = base.mark_text(fontSize=12).encode(
        text=alt.Text("rank_text:N"),
        color=alt.condition("datum.dark", alt.value("white"), alt.value("black")),
        tooltip=tips,
    )
    direction = "higher" if greater else "lower"
    chart: alt.TopLevelMixin = alt.layer(heat, text).properties(
        width=max(160, 64 * len(collections)),
        height=max(80, 26 * len(systems)),
        title=title(
            f"{metric} by collection",
            f"colour: the mean ({direction} is better, darker); number: the rank on the "
            "collection (1 = best)",
        ),
    )
    return chart
