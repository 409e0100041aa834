"""The quality-versus-cost chart: each system's mean metric against its mean cost, front marked."""

from __future__ import annotations

from typing import Any, Final

import altair as alt
import polars as pl

from rankset.charts._common import (
    MAX_ROWS,
    VALUE_FORMAT,
    inline_frame,
    named,
    param_value,
    resolve_metric,
    to_frame,
    unique,
)
from rankset.charts._theme import system_colors
from rankset.errors import ParameterError

__all__ = ["cost_quality_chart"]

_NEEDED: Final = ("system", "metric", "cost", "quality", "cost_mean", "pareto")
_FRONT_COLOR: Final = "#57606a"


def cost_quality_chart(
    points: pl.DataFrame | str,
    metric: str | alt.Parameter | None = None,
    cost: str | alt.Parameter | None = None,
    *,
    colors: alt.Scale | None = None,
    max_rows: int = MAX_ROWS,
) -> alt.LayerChart:
    """Chart quality against cost: one point per system, the Pareto front joined by a line.

    Parameters
    ----------
    points
        What :func:`rankset.comparison.cost_quality` returns (an analysis's
        ``cost_quality``), whose rows are inlined; or the name of a dataset of such rows
        that the page fills (the dashboard's ``"costs"``).
    metric, cost
        The metric (y) and the cost column (x, its mean over the queries) to draw; each
        may be left out when the frame holds one. A variable parameter
        (``alt.param(name="metric", value="ndcg@10")``) draws the value it holds: the
        page changes it without a new spec. With a dataset name both are needed.
    colors
        Colour scale for systems: :func:`system_colors` of every system of the page.
    max_rows
        Most rows to inline.

    Returns
    -------
    altair.LayerChart
        Mean cost on x, mean quality on y, a point per system in its colour (filled and
        larger on the front, hollow when another system is as good and cheaper), the
        system's name beside it, and a grey step line through the front from the cheapest
        system up. Mean, median and 95th percentile of the cost in the tooltip.

    Examples
    --------
    >>> from rankset.comparison import cost_quality
    >>> summary = pl.DataFrame({"system": ["a", "b", "c"], "metric": "rr",
    ...                         "mean": [0.4, 0.6, 0.5]})
    >>> costs = pl.DataFrame({"system": ["a", "b", "c"], "cost": "latency_ms",
    ...                       "mean": [5.0, 50.0, 60.0], "p50": 0.0, "p95": 0.0})
    >>> spec = cost_quality_chart(cost_quality(summary, costs)).to_dict()
    >>> [layer["mark"]["type"] for layer in spec["layer"]]
    ['line', 'point', 'point', 'text']
    >>> spec["title"]["text"]
    'rr versus mean latency_ms'
    """
    params = [value for value in (metric, cost) if isinstance(value, alt.Parameter)]
    first_metric = param_value(metric, "cost") if isinstance(metric, alt.Parameter) else metric
    first_cost = param_value(cost, "cost") if isinstance(cost, alt.Parameter) else cost
    data: alt.Data | alt.NamedData
    if isinstance(points, str):
        if first_metric is None or first_cost is None:
            msg = "A cost chart drawn from a dataset needs its 'metric' and its 'cost'."
            raise ParameterError(msg)
        data = named(points, "cost")
        scale = colors
    else:
        frame = to_frame(points, None, _NEEDED, "cost_quality")
        first_metric = _pick(first_metric, unique(frame, "metric"), "metric")
        first_cost = _pick(first_cost, unique(frame, "cost"), "cost")
        if not isinstance(metric, alt.Parameter):
            frame = frame.filter(pl.col("metric") == first_metric)
        if not isinstance(cost, alt.Parameter):
            frame = frame.filter(pl.col("cost") == first_cost)
        data = inline_frame(frame, max_rows, "cost")
        scale = colors or system_colors(unique(frame, "system"))
    metric_name = metric.name if isinstance(metric, alt.Parameter) else None
    cost_name = cost.name if isinstance(cost, alt.Parameter) else None
    x_title = "mean cost" if cost_name else f"mean {first_cost}"
    y_title = "mean" if metric_name else first_metric
    # costs are >= 0: the axis starts at 0; padding: room for the names above and below
    x = alt.X("cost_mean:Q", title=x_title, scale=alt.Scale(zero=True, nice=True))
    y = alt.Y("quality:Q", title=y_title, scale=alt.Scale(zero=False, nice=True, padding=14))
    color = (
        alt.Color("system:N", title="system")
        if scale is None
        else alt.Color("system:N", scale=scale, title="system")
    )
    tooltip: list[Any] = [
        alt.Tooltip("system:N"),
        alt.Tooltip("metric:N"),
        alt.Tooltip("quality:Q", title="mean", format=VALUE_FORMAT),
        alt.Tooltip("cost:N"),
        alt.Tooltip("cost_mean:Q", title="cost mean", format=".4~g"),
        alt.Tooltip("cost_p50:Q", title="cost p50", format=".4~g"),
        alt.Tooltip("cost_p95:Q", title="cost p95", format=".4~g"),
        alt.Tooltip("pareto:N", title="on the Pareto front"),
    ]
    front = (
        alt.Chart()
        .transform_filter("datum.pareto")
        .mark_line(interpolate="step-after", color=_FRONT_COLOR, strokeDash=[4, 3])
        .encode(x=x, y=y, order=alt.Order("cost_mean:Q"))
    )
    # two layers rather than a conditional fill: Vega-Lite warns on a fill by condition
    dots = [
        alt.Chart()
        .transform_filter("datum.pareto" if on_front else "!datum.pareto")
        .mark_point(
            filled=on_front,
            size=150 if on_front else 70,
            shape="diamond" if on_front else "circle",
            strokeWidth=2,
            opacity=1,
        )
        .encode(x=x, y=y, color=color, tooltip=tooltip)
        for on_front in (True, False)
    ]
    names = (
        alt.Chart()
        .mark_text(align="center", dy=-13, fontSize=11)
        .encode(x=x, y=y, text="system:N", color=color)
    )
    chart = alt.LayerChart(layer=[front, *dots, names], data=data).properties(width=420, height=280)
    for field, param, first in (
        ("metric", metric_name, first_metric),
        ("cost", cost_name, first_cost),
    ):
        if param is not None:  # the rows of every value are there: the parameter picks
            chart = chart.transform_filter(f"datum.{field} === {param}")
        elif isinstance(points, str):
            chart = chart.transform_filter(alt.FieldEqualPredicate(field=field, equal=first))
    if params:
        chart = chart.add_params(*params)
    metric_text = metric_name if metric_name else repr(first_metric)
    cost_text = cost_name if cost_name else repr(first_cost)
    subtitle = "filled: the Pareto front (no other system as good and cheaper)"
    if params:
        expression = f"{metric_text} + ' versus mean ' + {cost_text}"
        return chart.properties(title=alt.Title(alt.ExprRef(expression), subtitle=subtitle))
    titled: alt.LayerChart = chart.properties(
        title=alt.Title(f"{first_metric} versus mean {first_cost}", subtitle=subtitle)
    )
    return titled


def _pick(value: str | None, present: list[str], what: str) -> str:
    """Return ``value`` (a metric or cost in the frame), or the one the frame holds."""
    if value is None:
        if len(present) != 1:
            msg = f"The cost_quality frame holds {len(present)} {what}s {present}; pick one."
            raise ParameterError(msg)
        return present[0]
    if what == "metric":
        return resolve_metric(value, present, "cost_quality frame")
    if value not in present:
        msg = f"The cost_quality frame has no cost {value!r}; it has {present}."
        raise ParameterError(msg)
    return value
