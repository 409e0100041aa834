"""The chart of a suite: systems × collections, the metric as colour, the rank as text."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

import altair as alt
import polars as pl

from rankset.charts._common import (
    MAX_ROWS,
    VALUE_FORMAT,
    inline_frame,
    metric_of,
    named,
    resolve_metric,
    title,
    to_frame,
    unique,
)
from rankset.comparison import higher_is_better
from rankset.comparison.suites import SuiteResult
from rankset.errors import ParameterError

__all__ = ["suite_heatmap"]

_COLUMNS: Final = ("collection", "system", "metric", "mean", "rank")
# A cell's text: the rank on the collection, whole or to a decimal (a dash: no rank), as
# _cells writes it into inlined cells.
_RANK_TEXT: Final = (
    "datum.rank == null ? '\u2013' : (datum.rank === round(datum.rank) ? "
    "format(datum.rank, 'd') : format(datum.rank, '.1f'))"
)
_SUBTITLE: Final = "colour: the mean ({}); number: the rank on the collection (1 = best)"


def suite_heatmap(
    suite: SuiteResult | pl.DataFrame | str,
    metric: str | alt.Parameter | None = None,
    *,
    collections: Sequence[str] | None = None,
    lower: alt.Parameter | None = None,
    max_rows: int = MAX_ROWS,
) -> alt.TopLevelMixin:
    """Chart one metric of :func:`rankset.comparison.evaluate_suite` as a heatmap.

    Parameters
    ----------
    suite
        A :class:`~rankset.comparison.SuiteResult` or its ``per_collection`` frame, whose
        cells are inlined; or the name of a dataset of cells that the page fills (the
        dashboard's ``"collections"``: ``per_collection``'s rows with ``order``, the
        system's place in the metric's aggregate, and ``dark``, white text).
    metric
        The metric (canonical name or an alias); by default the first. A variable
        parameter (``alt.param(name="metric", value="ndcg@10")``) draws the metric it
        holds instead: the page changes it without a new spec.
    collections
        The columns' order (default: the suite's; needed with a dataset).
    lower
        With a metric parameter, a boolean parameter the page keeps true while the metric
        it holds is better lower (the colours reverse); default: fixed by the metric the
        parameter starts at.
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

    Drawn from the page's dataset ``collections``, on the metric its parameter holds:

    >>> picked = alt.param(name="metric", value="rr")
    >>> spec = suite_heatmap("collections", picked, collections=["c1", "c2"]).to_dict()
    >>> spec["data"], spec["layer"][0]["encoding"]["y"]["sort"]
    ({'name': 'collections'}, {'field': 'order', 'op': 'min'})
    """
    param = metric if isinstance(metric, alt.Parameter) else None
    name = metric_of(metric, "suite")
    data: alt.Data | alt.NamedData
    tips: list[Any] = [alt.Tooltip("system:N"), alt.Tooltip("collection:N")]
    if isinstance(suite, str):
        if name is None or collections is None:
            msg = "A suite heatmap drawn from a dataset needs its 'metric' and 'collections'."
            raise ParameterError(msg)
        data = named(suite, "suite")
        columns = list(collections)
        rows_sort: list[str] | alt.EncodingSortField = alt.EncodingSortField("order", op="min")
        extra: tuple[str, ...] = ("ci_low", "ci_high", "n_queries")
    else:
        frame = to_frame(suite, "per_collection", _COLUMNS, "suite")
        present = unique(frame, "metric")
        name = resolve_metric(name or present[0], present, "suite")
        cells, rows_sort = _cells(suite, frame, name, every_metric=param is not None)
        columns = list(collections) if collections is not None else _collections(suite, cells)
        extra = tuple(c for c in ("ci_low", "ci_high", "n_queries") if c in cells.columns)
        data = inline_frame(cells, max_rows, "suite")
    greater = higher_is_better(name)
    tips += [
        alt.Tooltip("mean:Q", format=VALUE_FORMAT, title="mean" if param else name),
        alt.Tooltip("rank:Q", title="rank (1 = best)"),
    ]
    if "ci_low" in extra:
        tips += [
            alt.Tooltip("ci_low:Q", format=VALUE_FORMAT, title="CI from"),
            alt.Tooltip("ci_high:Q", format=VALUE_FORMAT, title="CI to"),
        ]
    if "n_queries" in extra:
        tips.append(alt.Tooltip("n_queries:Q", title="queries"))
    base = alt.Chart().encode(
        x=alt.X(
            "collection:N",
            sort=columns,
            title=None,
            axis=alt.Axis(labelAngle=-30, orient="top"),
        ),
        y=alt.Y("system:N", sort=rows_sort, title=None),
    )
    reverse: bool | alt.ExprRef = not greater
    if lower is not None:
        reverse = alt.ExprRef(lower.name)
    heat = base.mark_rect().encode(
        color=alt.Color(
            "mean:Q",
            scale=alt.Scale(scheme="blues", reverse=reverse),
            title="mean" if param else name,
        ),
        tooltip=tips,
    )
    text = base.mark_text(fontSize=12).encode(
        text=alt.Text("rank_text:N"),
        color=alt.condition("datum.dark", alt.value("white"), alt.value("black")),
        tooltip=tips,
    )
    if isinstance(suite, str):  # inlined cells carry their rank_text
        text = text.transform_calculate(rank_text=_RANK_TEXT)
    chart = alt.layer(heat, text, data=data).properties(
        width=max(160, 72 * len(columns)), height=alt.Step(26)
    )
    if param is not None:
        return (
            chart.transform_filter(f"datum.metric === {param.name}")
            .add_params(param, *([lower] if lower is not None else []))
            .properties(
                title=alt.Title(
                    alt.ExprRef(f"{param.name} + ' by collection'"),
                    subtitle=_SUBTITLE.format("darker is better"),
                )
            )
        )
    if isinstance(suite, str):
        chart = chart.transform_filter(alt.FieldEqualPredicate(field="metric", equal=name))
    direction = "higher" if greater else "lower"
    heading: alt.TopLevelMixin = chart.properties(
        title=title(f"{name} by collection", _SUBTITLE.format(f"{direction} is better, darker"))
    )
    return heading


def _collections(suite: Any, cells: pl.DataFrame) -> list[str]:
    if isinstance(suite, SuiteResult):
        return list(suite.collections)
    return unique(cells, "collection")


def _cells(
    suite: Any, frame: pl.DataFrame, metric: str, *, every_metric: bool
) -> tuple[pl.DataFrame, list[str]]:
    """Return the cells to inline and the systems' order on ``metric``.

    A cell's ``rank_text`` is its text, ``dark`` says it is drawn white (the cell is in the
    better half of the metric's range).
    """
    rows = frame if every_metric else frame.filter(pl.col("metric") == metric)
    if isinstance(suite, SuiteResult):
        systems = unique(suite.aggregate.filter(pl.col("metric") == metric), "system")
    else:  # the frame's order of mean ranks (systems without a rank last)
        shown = frame.filter(pl.col("metric") == metric)
        order = shown.group_by("system", maintain_order=True).agg(pl.col("rank").mean())
        systems = unique(order.sort("rank", nulls_last=True, maintain_order=True), "system")
    greater = {m: higher_is_better(m) for m in unique(rows, "metric")}
    middle = (pl.col("mean").max() + pl.col("mean").min()).over("metric") / 2
    rank = pl.col("rank")
    rows = rows.with_columns(
        rank_text=pl.when(rank.is_null())
        .then(pl.lit("\u2013"))
        .when(rank == rank.round(0))
        .then(rank.cast(pl.Int64).cast(pl.String))
        .otherwise(rank.round(1).cast(pl.String)),
        dark=pl.when(pl.col("metric").replace_strict(greater, return_dtype=pl.Boolean))
        .then(pl.col("mean") > middle)
        .otherwise(pl.col("mean") < middle)
        .fill_null(False),
    )
    keep = (
        "collection",
        "system",
        "metric",
        "mean",
        "rank",
        "rank_text",
        "dark",
        "ci_low",
        "ci_high",
    )
    cells = rows.select([c for c in (*keep, "n_queries") if c in rows.columns])
    return cells, systems
