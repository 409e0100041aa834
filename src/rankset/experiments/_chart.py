"""A chart of the history: a metric's mean over the logged entries, one line per system."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import polars as pl

from rankset._format import DECIMALS
from rankset._validation import did_you_mean
from rankset.errors import ParameterError, SchemaError
from rankset.experiments._history import in_utc
from rankset.measures import parse_metric

if TYPE_CHECKING:
    import altair as alt

__all__ = ["history_chart"]

_NEEDED = ("entry_id", "time", "system", "metric", "mean")


def history_chart(
    history: pl.DataFrame, metric: str | None = None, *, band: bool = True
) -> alt.LayerChart:
    """Chart a metric's mean over the logged entries, one line per system.

    Parameters
    ----------
    history
        What :meth:`Store.history` returns (``entry_id, time, system, metric, mean``,
        and ``ci_low, ci_high, tag`` when present).
    metric
        The metric to draw; may be left out when the history holds one.
    band
        Draw the bootstrap CI of each mean as a band around its line.

    Returns
    -------
    altair.LayerChart
        Time on x, the mean on y, a colour per system; the entry id, tag and CI in the
        tooltip.

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
    """
    import altair as alt

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
    frame = (
        in_utc(history)
        .filter(pl.col("metric") == name)
        .with_columns(pl.col("time").dt.to_string("%Y-%m-%dT%H:%M:%S%.6fZ").alias("time"))
    )
    with_ci = band and {"ci_low", "ci_high"} <= set(frame.columns)
    keep = [c for c in (*_NEEDED, "tag", "ci_low", "ci_high") if c in frame.columns]
    values: list[dict[str, Any]] = frame.select(keep).to_dicts()
    data = alt.Data(values=values)  # type: ignore[no-untyped-call]
    value_format = f".{DECIMALS}f"
    x = alt.X("time:T", title="logged")
    color = alt.Color("system:N", title="system")
    tooltip = [
        alt.Tooltip("entry_id:N", title="entry"),
        alt.Tooltip("time:T", title="logged", format="%Y-%m-%d %H:%M"),
        alt.Tooltip("system:N"),
        alt.Tooltip("mean:Q", title=name, format=value_format),
    ]
    if "tag" in keep:
        tooltip.append(alt.Tooltip("tag:N"))
    if with_ci:
        tooltip += [
            alt.Tooltip("ci_low:Q", format=value_format),
            alt.Tooltip("ci_high:Q", format=value_format),
        ]
    line = (
        alt.Chart(data)
        .mark_line(point=True)
        .encode(x=x, y=alt.Y("mean:Q", title=f"mean {name}"), color=color, tooltip=tooltip)
    )
    layers: list[alt.Chart] = []
    if with_ci:
        layers.append(
            alt.Chart(data)
            .mark_area(opacity=0.15)
            .encode(x=x, y="ci_low:Q", y2="ci_high:Q", color=color)
        )
    layers.append(line)
    chart = alt.LayerChart(layer=layers)
    return chart.properties(title=f"{name} over logged entries")
