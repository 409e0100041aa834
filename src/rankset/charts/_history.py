"""The history chart: a metric's logged mean over an experiment store's entries, per system."""

from __future__ import annotations

from typing import Any, Final

import altair as alt
import polars as pl

from rankset._validation import did_you_mean
from rankset.charts._common import MAX_ROWS, VALUE_FORMAT, inline_frame, metric_of, named
from rankset.charts._theme import system_colors
from rankset.errors import ParameterError, SchemaError
from rankset.measures import parse_metric

__all__ = ["history_chart"]

_NEEDED: Final = ("entry_id", "time", "system", "metric", "mean")


def history_chart(
    history: pl.DataFrame | str,
    metric: str | alt.Parameter | None = None,
    *,
    band: bool = True,
    colors: alt.Scale | None = None,
    max_rows: int = MAX_ROWS,
) -> alt.LayerChart:
    """Chart a metric's mean over the logged entries, one line per system.

    Parameters
    ----------
    history
        What :meth:`rankset.experiments.Store.history` returns (``entry_id, time,
        system, metric, mean``, and ``ci_low, ci_high, tag`` when present), whose rows are
        inlined; or the name of a dataset of such rows (``time`` an ISO string) that the
        page fills (the dashboard's ``"history"``).
    metric
        The metric to draw; may be left out when the history holds one. A variable
        parameter (``alt.param(name="metric", value="ndcg@10")``) draws the metric it
        holds instead: the page changes it without a new spec.
    band
        Draw the bootstrap CI of each mean as a band around its line.
    colors
        Colour scale for systems: :func:`system_colors` of every system of the page, so a
        system keeps its colour (default: of the history's systems; none for a dataset).
    max_rows
        Most rows to inline.

    Returns
    -------
    altair.LayerChart
        The entries on x, named as pages name them (``entry``: the tag, or
        ``tag@short id`` when a tag repeats), in logged order; the mean on y, a colour per
        system; the entry id, time, tag and CI in the tooltip. With ``p_step`` (a store's
        history, :func:`rankset.experiments.Store` read by a page), a ring marks each
        mean that changed significantly (p < 0.05, paired randomization test, not
        corrected) from the entry before it in its tag.

    Examples
    --------
    >>> from datetime import datetime, UTC
    >>> history = pl.DataFrame({
    ...     "entry_id": ["e1", "e2"], "time": [datetime(2025, 1, 1, tzinfo=UTC),
    ...     datetime(2025, 1, 2, tzinfo=UTC)], "system": ["run", "run"],
    ...     "metric": ["ndcg@10", "ndcg@10"], "mean": [0.5, 0.6],
    ...     "ci_low": [0.4, 0.5], "ci_high": [0.6, 0.7], "tag": ["main", "main"]})
    >>> spec = history_chart(history).to_dict()
    >>> [layer["mark"]["type"] for layer in spec["layer"]]
    ['area', 'line']
    >>> spec["title"]
    'ndcg@10 over logged entries'

    Drawn from the page's dataset ``history``, on the metric its parameter holds:

    >>> picked = alt.param(name="metric", value="ndcg@10")
    >>> spec = history_chart("history", picked).to_dict()
    >>> spec["data"], spec["transform"]
    ({'name': 'history'}, [{'filter': 'datum.metric === metric'}])
    """
    param = metric if isinstance(metric, alt.Parameter) else None
    start = metric_of(metric, "history")
    data: alt.Data | alt.NamedData
    if isinstance(history, str):
        if start is None:
            msg = "A history chart drawn from a dataset needs its 'metric' (a name or a parameter)."
            raise ParameterError(msg)
        data = named(history, "history")
        name = start
        with_ci, with_tag, scale, with_steps = band, True, colors, True
    else:
        frame = _rows(history, start, every_metric=param is not None)
        name = start if param and start else str(frame["metric"][0])
        with_ci = band and {"ci_low", "ci_high"} <= set(frame.columns)
        with_tag = "tag" in frame.columns
        with_steps = "p_step" in frame.columns
        scale = colors or system_colors(frame["system"].unique(maintain_order=True).to_list())
        data = inline_frame(frame, max_rows, "history")
    legend = alt.Legend(symbolOpacity=1, symbolType="stroke", symbolStrokeWidth=3)
    color = (
        alt.Color("system:N", title="system", legend=legend)
        if scale is None
        else alt.Color("system:N", scale=scale, title="system", legend=legend)
    )
    # entries by name (tag, tag@short id) in logged order, not by time: entries logged
    # within a second had an axis of milliseconds (".950")
    x = alt.X("entry:N", title="entry (in logged order)", sort=None, axis=alt.Axis(labelAngle=-30))
    y_scale = alt.Scale(zero=False)
    tooltip: list[Any] = [
        alt.Tooltip("entry:N", title="entry"),
        alt.Tooltip("entry_id:N", title="entry id"),
        alt.Tooltip("time:T", title="logged", format="%Y-%m-%d %H:%M"),
        alt.Tooltip("system:N"),
        *([alt.Tooltip("tag:N")] if with_tag else []),
        alt.Tooltip("mean:Q", title="mean" if param else name, format=VALUE_FORMAT),
    ]
    if with_ci:
        tooltip += [
            alt.Tooltip("ci_low:Q", format=VALUE_FORMAT, title="CI low"),
            alt.Tooltip("ci_high:Q", format=VALUE_FORMAT, title="CI high"),
        ]
    y_title = "mean" if param else f"mean {name}"
    line = (
        alt.Chart()
        .mark_line(point=True)
        .encode(x=x, y=alt.Y("mean:Q", title=y_title, scale=y_scale), color=color, tooltip=tooltip)
    )
    layers: list[alt.Chart] = []
    if with_ci:
        layers.append(
            alt.Chart()
            .mark_area(opacity=0.15)
            .encode(
                x=x,
                y=alt.Y("ci_low:Q", title=y_title, scale=y_scale),
                y2="ci_high:Q",
                color=color,
            )
        )
    layers.append(line)
    if with_steps:
        # a ring around a mean that changed significantly from the entry before in its tag
        from rankset.experiments._shared import MARK_ALPHA  # rankset.experiments imports us

        layers.append(
            alt.Chart()
            .transform_filter(f"isValid(datum.p_step) && datum.p_step < {MARK_ALPHA}")
            .mark_point(shape="circle", size=260, filled=False, strokeWidth=2.5)
            .encode(
                x=x,
                y=alt.Y("mean:Q", title=y_title, scale=y_scale),
                color=color,
                tooltip=[
                    *tooltip,
                    alt.Tooltip("previous:N", title="changed from"),
                    alt.Tooltip("p_step:Q", title="p of the change", format=".3g"),
                ],
            )
        )
    chart = alt.LayerChart(layer=layers, data=data).properties(width=560, height=260)
    if param is not None:
        return (
            chart.transform_filter(f"datum.metric === {param.name}")
            .add_params(param)
            .properties(title=alt.Title(alt.ExprRef(f"{param.name} + ' over logged entries'")))
        )
    if isinstance(history, str):
        chart = chart.transform_filter(alt.FieldEqualPredicate(field="metric", equal=name))
    titled: alt.LayerChart = chart.properties(title=f"{name} over logged entries")
    return titled


def _rows(history: pl.DataFrame, metric: str | None, *, every_metric: bool) -> pl.DataFrame:
    """Return the rows of ``metric`` (of the one metric held when None), time as a string.

    With ``every_metric``, every metric's rows, for a parameter to pick from.
    """
    # here: rankset.experiments may import this module
    from rankset.experiments._shared import entry_names, in_utc

    missing = [name for name in _NEEDED if name not in history.columns]
    if missing:
        msg = f"The history frame lacks the columns {missing}; pass Store.history()."
        raise SchemaError(msg)
    present = [str(m) for m in history["metric"].unique(maintain_order=True).to_list()]
    if metric is None:
        if len(present) != 1:
            msg = f"The history holds {len(present)} metrics {present}; pick one with 'metric'."
            raise ParameterError(msg)
        name = present[0]
    else:
        name = parse_metric(metric).name
        if name not in present:
            msg = f"The history has no metric {metric!r}; it has {present}."
            raise ParameterError(msg + did_you_mean(name, present))
    optional = ("tag", "ci_low", "ci_high", "entry", "previous", "p_step")
    rows = entry_names(in_utc(history))
    keep = [c for c in (*_NEEDED, *optional) if c in rows.columns]
    if not every_metric:
        rows = rows.filter(pl.col("metric") == name)
    return rows.with_columns(pl.col("time").dt.to_string("%Y-%m-%dT%H:%M:%S%.6fZ")).select(keep)
