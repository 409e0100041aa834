"""The metric-vs-cutoff chart of :func:`rankset.curves`, drawn by the report and the dashboard."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

import altair as alt
import polars as pl

from rankset._validation import check_int
from rankset.charts._common import (
    MAX_ROWS,
    VALUE_FORMAT,
    header,
    inline_frame,
    named,
    param_value,
    require_columns,
    resolve_metric,
    title,
    to_frame,
    unique,
)
from rankset.charts._theme import system_colors
from rankset.evaluation.cutoff_curves import Curves

__all__ = ["curves_chart"]


_MAX_MARKED_CUTOFFS: Final = 25
_SUBTITLE: Final = "shaded: confidence interval of the mean; click a system in the legend"


def curves_chart(
    curves: Curves | pl.DataFrame | str,
    *,
    metrics: Sequence[str] | alt.Parameter | None = None,
    ci: bool = True,
    colors: alt.Scale | None = None,
    cutoff: int | alt.Parameter | None = None,
    columns: int = 3,
    max_rows: int = MAX_ROWS,
) -> alt.TopLevelMixin:
    """Chart metric-vs-cutoff curves: a line per system, a panel per metric.

    The report and the dashboard draw this chart (the dashboard from its dataset, on the
    metric and the cutoff its parameters hold).

    Parameters
    ----------
    curves
        A :class:`~rankset.evaluation.cutoff_curves.Curves` or its ``summary`` frame
        (``system, metric, k, mean`` and, for the band, ``ci_low, ci_high``), whose rows
        are inlined; or the name of a dataset of such rows that the page fills (the
        dashboard's ``"curves"``).
    metrics
        The metrics to draw, in panel order (default: all, in frame order). A variable
        parameter (``alt.param(name="measure", value="ndcg")``) draws one panel instead,
        of the metric the parameter holds: the page changes it without a new spec.
    ci
        Draw the confidence band ``ci_low .. ci_high`` behind each line.
    colors
        Colour scale for systems: :func:`system_colors` of every system of the page, so
        a system keeps its colour (default: of the systems shown; none for a dataset).
    cutoff
        A cutoff to mark: a dashed rule, and each system's mean there as a larger point;
        a variable parameter (``alt.param(name="k", value=10)``) lets the page move it.
    columns
        Panels per row before wrapping.
    max_rows
        Most rows to inline.

    Returns
    -------
    altair.FacetChart or altair.LayerChart
        Faceted by ``metric`` (y scales independent per panel); one layer chart for a
        metric parameter. Clicking a system in the legend brings its line forward.

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

    Drawn from the page's dataset ``curves``, on the metric its parameter ``measure`` holds:

    >>> picked = alt.param(name="measure", value="ndcg")
    >>> spec = curves_chart("curves", metrics=picked).to_dict()
    >>> spec["data"], spec["transform"]
    ({'name': 'curves'}, [{'filter': 'datum.metric === measure'}])
    """
    param = metrics if isinstance(metrics, alt.Parameter) else None
    names = None if isinstance(metrics, alt.Parameter) or metrics is None else list(metrics)
    chosen: list[str] | None = None  # the panels' metrics (None: one panel, or unknown)
    shown: list[str] | None = None  # the systems drawn (None: unknown)
    points = True  # a point per cutoff (unknown for a dataset)
    scale = colors
    data: alt.Data | alt.NamedData
    if isinstance(curves, str):
        data = named(curves, "curves")
        if param is not None:
            param_value(param, "curves")
        chosen = None if names is None else [str(m) for m in names]
    else:
        frame = to_frame(curves, "summary", ("system", "metric", "k", "mean"), "curves")
        if ci:
            require_columns(frame, ("ci_low", "ci_high"), "curves summary (for ci=True)")
        present = unique(frame, "metric")
        if param is not None:
            resolve_metric(param_value(param, "curves"), present, "curves")
        else:
            chosen = [resolve_metric(m, present, "curves") for m in names or present]
            frame = frame.filter(pl.col("metric").is_in(chosen))
        # A point per cutoff helps up to a few dozen cutoffs; beyond, they hide the line.
        points = frame["k"].n_unique() <= _MAX_MARKED_CUTOFFS
        shown = unique(frame, "system")
        scale = colors or system_colors(shown)
        kept = ["system", "metric", "k", "mean", *(["ci_low", "ci_high"] if ci else [])]
        data = inline_frame(frame.select(kept), max_rows, "curves")
    columns = check_int("columns", columns, 1)
    single = chosen is not None and len(chosen) == 1
    y_title = f"mean {chosen[0]}" if chosen and single else "mean over queries"
    layers = _curve_layers(ci=ci, points=points, scale=scale, shown=shown, y_title=y_title)
    if cutoff is not None:
        layers += _cutoff_layers(cutoff, scale)
    chart = alt.layer(*layers, data=data).properties(width=260, height=200)
    subtitle = _SUBTITLE if ci else "click a system in the legend"
    # The page's parameters sit at the top level, where Vega-Lite looks for variables.
    page_params = [p for p in (param, cutoff) if isinstance(p, alt.Parameter)]
    if param is not None:
        one: alt.TopLevelMixin = (
            chart.transform_filter(f"datum.metric === {param.name}")
            .add_params(*page_params)
            .properties(
                title=alt.Title(alt.ExprRef(f"{param.name} + ' by cutoff'"), subtitle=subtitle)
            )
        )
        return one
    if isinstance(curves, str) and chosen is not None:
        chart = chart.transform_filter(alt.FieldOneOfPredicate(field="metric", oneOf=chosen))
    heading = f"{chosen[0]} by cutoff" if chosen and single else "Metrics by cutoff"
    faceted: alt.FacetChart = (
        chart.facet(
            facet=alt.Facet("metric:N", title=None, sort=chosen, header=header()),
            columns=min(columns, len(chosen)) if chosen else columns,
        )
        .resolve_scale(y="independent")
        .properties(title=title(heading, subtitle))
    )
    if page_params:
        faceted = faceted.add_params(*page_params)
    return faceted


def _curve_layers(
    *, ci: bool, points: bool, scale: alt.Scale | None, shown: list[str] | None, y_title: str
) -> list[alt.Chart]:
    """Draw a band and a line per system, coloured by ``scale``; the legend picks one."""
    legend: dict[str, Any] = {"symbolOpacity": 1.0, "symbolType": "stroke", "symbolStrokeWidth": 3}
    if shown is not None and scale is not None and _domain(scale) != shown:
        legend["values"] = shown  # a subset of the page's systems: only those it draws
    color = alt.Color("system:N", title="system", legend=alt.Legend(**legend))
    if scale is not None:
        color = alt.Color("system:N", scale=scale, title="system", legend=alt.Legend(**legend))
    picked = alt.selection_point(name="curves_legend", fields=["system"], bind="legend")
    base = alt.Chart().encode(
        x=alt.X("k:Q", title="cutoff k", axis=alt.Axis(tickMinStep=1, format="d")),
        color=color,
    )
    tips = [
        alt.Tooltip("system:N"),
        alt.Tooltip("metric:N"),
        alt.Tooltip("k:Q"),
        alt.Tooltip("mean:Q", format=VALUE_FORMAT),
    ]
    if ci:
        tips += [
            alt.Tooltip("ci_low:Q", format=VALUE_FORMAT, title="CI low"),
            alt.Tooltip("ci_high:Q", format=VALUE_FORMAT, title="CI high"),
        ]
    line = (
        base.mark_line(strokeWidth=2, point=alt.OverlayMarkDef(size=20) if points else False)
        .encode(
            y=alt.Y("mean:Q", title=y_title),
            opacity=alt.when(picked).then(alt.value(1.0)).otherwise(alt.value(0.15)),
            tooltip=tips,
        )
        .add_params(picked)
    )
    if not ci:
        return [line]
    band = base.mark_area(opacity=0.15).encode(
        y=alt.Y("ci_low:Q", title=y_title), y2=alt.Y2("ci_high:Q")
    )
    return [band, line]


def _cutoff_layers(cutoff: int | alt.Parameter, scale: alt.Scale | None) -> list[alt.Chart]:
    """Mark ``cutoff``: a dashed rule, and each system's mean there."""
    at = cutoff.name if isinstance(cutoff, alt.Parameter) else str(cutoff)
    rows = alt.Chart().transform_filter(f"datum.k === {at}")
    rule = (
        rows.transform_aggregate(k="min(k)")
        .mark_rule(color="#59636e", strokeDash=[4, 3])
        .encode(x="k:Q")
    )
    color = alt.Color("system:N") if scale is None else alt.Color("system:N", scale=scale)
    points = rows.mark_point(filled=True, size=80).encode(x="k:Q", y="mean:Q", color=color)
    return [rule, points]


def _domain(scale: alt.Scale) -> list[str] | None:
    domain = scale.to_dict().get("domain")
    return [str(name) for name in domain] if isinstance(domain, list) else None
