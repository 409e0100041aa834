"""The distribution of one metric's per-query values, per system."""

from __future__ import annotations

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
from rankset.charts._theme import system_colors
from rankset.evaluation import EvaluationResult

__all__ = ["distribution_chart"]


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
    frame = to_frame(result, "per_query", ("system", "query_id", "metric", "value"), "result")
    name = resolve_metric(metric, unique(frame, "metric"), "result")
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
    systems = unique(frame, "system")  # in the order of the inputs
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
                alt.Tooltip("value:Q", title=name, format=VALUE_FORMAT),
            ],
        )
    )
    subtitle = f"{n_na} NA value{'s' if n_na != 1 else ''} not shown" if n_na else ""
    return alt.layer(box, points, data=inline_frame(frame, max_rows, "distribution")).properties(
        width=420, height=alt.Step(56), title=title(f"{name} per query", subtitle)
    )
