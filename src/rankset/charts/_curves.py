"""The metric-vs-cutoff chart of :func:`rankset.curves`."""

from __future__ import annotations

from collections.abc import Sequence

import altair as alt
import polars as pl

from rankset._validation import check_int
from rankset.charts._common import (
    MAX_ROWS,
    header,
    inline_frame,
    require_columns,
    resolve_metric,
    title,
    to_frame,
    tooltip,
    unique,
)
from rankset.charts._theme import system_colors
from rankset.evaluation.cutoff_curves import Curves

__all__ = ["curves_chart"]


_MAX_MARKED_CUTOFFS = 25


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
        A :class:`~rankset.evaluation.cutoff_curves.Curves` or its ``summary`` frame
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
    frame = to_frame(curves, "summary", ("system", "metric", "k", "mean"), "curves")
    if ci:
        require_columns(frame, ("ci_low", "ci_high"), "curves summary (for ci=True)")
    present = unique(frame, "metric")
    chosen = present if metrics is None else [resolve_metric(m, present, "curves") for m in metrics]
    frame = frame.filter(pl.col("metric").is_in(chosen))
    columns = check_int("columns", columns, 1)
    scale = colors or system_colors(unique(frame, "system"))

    single = len(chosen) == 1
    y_title = f"mean {chosen[0]}" if single else "mean over queries"
    base = alt.Chart().encode(
        x=alt.X("k:Q", title="cutoff k", axis=alt.Axis(tickMinStep=1, format="d")),
        # Opaque legend symbols: the band's opacity would otherwise wash them out.
        color=alt.Color(
            "system:N", scale=scale, title="system", legend=alt.Legend(symbolOpacity=1.0)
        ),
    )
    # A point per cutoff helps up to a few dozen cutoffs; beyond, the points hide the line.
    points = frame["k"].n_unique() <= _MAX_MARKED_CUTOFFS
    line = base.mark_line(point=points, strokeWidth=2).encode(
        y=alt.Y("mean:Q", title=y_title),
        tooltip=tooltip(frame, ["system", "metric", "k", "mean", "ci_low", "ci_high"]),
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
    heading = f"{chosen[0]} by cutoff" if single else "Metrics by cutoff"
    chart: alt.TopLevelMixin = (
        alt.layer(*layers, data=inline_frame(frame, max_rows, "curves"))
        .properties(width=260, height=200)
        .facet(
            facet=alt.Facet("metric:N", title=None, sort=chosen, header=header()),
            columns=min(columns, len(chosen)) or 1,
        )
        .resolve_scale(y="independent")
        .properties(title=title(heading, subtitle))
    )
    return chart
