"""Charts of many systems: the pairwise significance matrix and the rank intervals."""

from __future__ import annotations

import altair as alt
import polars as pl

from rankset.charts._common import MAX_ROWS, VALUE_FORMAT, inline_frame, title, to_frame, unique
from rankset.charts._theme import system_colors
from rankset.comparison.all_pairs import comparison_rows
from rankset.comparison.pairwise import higher_is_better

__all__ = ["rank_interval_chart", "significance_chart"]


def significance_chart(
    comparison: pl.DataFrame,
    *,
    metric: str | None = None,
    test: str | None = None,
    max_rows: int = MAX_ROWS,
) -> alt.TopLevelMixin:
    """Chart one metric and test of :func:`rankset.compare_all` as a systems × systems heatmap.

    Parameters
    ----------
    comparison
        A frame from :func:`rankset.compare_all`.
    metric, test
        Which rows (by default the frame's first metric and first test).
    max_rows
        Most cells to inline.

    Returns
    -------
    altair.LayerChart
        Rows and columns are the systems in the comparison's order. A cell's colour is the
        row system's advantage over the column system (its mean minus the other's, with
        the sign flipped where lower is better: blue = the row is better); its text is the
        adjusted p-value, bold where significant.

    Examples
    --------
    >>> frame = pl.DataFrame(
    ...     {"system": ["b"], "baseline": ["a"], "metric": "rr", "test": "t",
    ...      "delta": [0.25], "p_adj": [0.01], "reject": [True]}
    ... )
    >>> spec = significance_chart(frame).to_dict()
    >>> spec["layer"][0]["mark"]["type"], spec["layer"][0]["encoding"]["x"]["sort"]
    ('rect', ['a', 'b'])
    """
    rows = to_frame(
        comparison,
        None,
        ("system", "baseline", "metric", "test", "delta", "p_adj", "reject"),
        "comparison",
    )
    rows = comparison_rows(rows, metric, test)
    metric, test = str(rows["metric"][0]), str(rows["test"][0])
    sign = 1.0 if higher_is_better(metric) else -1.0
    pairs = rows.select("system", "baseline", "delta", "p_adj", "reject")
    cells = pl.concat(
        [
            pairs.select(
                pl.col("system").alias("row"), pl.col("baseline").alias("column"),
                (sign * pl.col("delta")).alias("advantage"), "delta", "p_adj", "reject",
            ),
            pairs.select(
                pl.col("baseline").alias("row"), pl.col("system").alias("column"),
                (-sign * pl.col("delta")).alias("advantage"), (-pl.col("delta")).alias("delta"),
                "p_adj", "reject",
            ),
        ]
    )  # fmt: skip
    systems: list[str] = []
    for pair in rows.select("baseline", "system").iter_rows():
        systems += [system for system in pair if system not in systems]
    largest = max(abs(v) for v in cells["advantage"].drop_nulls().to_list() or [1.0]) or 1.0
    size = max(160, 44 * len(systems))
    base = alt.Chart(inline_frame(cells, max_rows, "comparison")).encode(
        x=alt.X("column:N", sort=systems, title=None, axis=alt.Axis(labelAngle=-30)),
        y=alt.Y("row:N", sort=systems, title=None),
    )
    heat = base.mark_rect().encode(
        color=alt.Color(
            "advantage:Q",
            scale=alt.Scale(scheme="redblue", domain=[-largest, largest], domainMid=0),
            title="row better by",
        ),
        tooltip=[
            alt.Tooltip("row:N", title="system"),
            alt.Tooltip("column:N", title="against"),
            alt.Tooltip("delta:Q", format=VALUE_FORMAT, title="mean difference"),
            alt.Tooltip("p_adj:Q", format=".3g", title="p (adjusted)"),
            alt.Tooltip("reject:N", title="significant"),
        ],
    )
    p_text = alt.Text("p_adj:Q", format=".2g")
    significant = base.mark_text(fontSize=11, fontWeight="bold").encode(text=p_text)
    other = base.mark_text(fontSize=11).encode(text=p_text)
    chart: alt.TopLevelMixin = alt.layer(
        heat,
        significant.transform_filter("datum.reject"),
        other.transform_filter("!datum.reject"),
    ).properties(
        width=size,
        height=size,
        title=title(
            f"{metric}: each system (row) against each other (column)",
            f"colour: the row's advantage; number: adjusted p ({test.replace('_', ' ')}), "
            "bold where significant",
        ),
    )
    return chart


def rank_interval_chart(
    ranks: pl.DataFrame, *, colors: alt.Scale | None = None, max_rows: int = MAX_ROWS
) -> alt.TopLevelMixin:
    """Chart each system's rank and its bootstrap interval (from :func:`rankset.rank_intervals`).

    Parameters
    ----------
    ranks
        A frame from :func:`rankset.rank_intervals`.
    colors
        Colour scale for systems (default: :func:`system_colors` of the systems shown).
    max_rows
        Most rows to inline.

    Returns
    -------
    altair.FacetChart or altair.LayerChart
        One panel per metric: a system per line, best first; a bar from the lowest to the
        highest rank of the interval and a point at the observed rank, filled where the
        system is not significantly worse than the best (hollow where it is, or where
        ``tied_with_best`` is null).

    Examples
    --------
    >>> ranks = pl.DataFrame(
    ...     {"metric": "rr", "system": ["a", "b"], "mean": [0.9, 0.5], "rank": [1, 2],
    ...      "rank_low": [1, 1], "rank_high": [2, 2], "tied_with_best": [True, True]}
    ... )
    >>> spec = rank_interval_chart(ranks).to_dict()
    >>> [layer["mark"]["type"] for layer in spec["layer"]]
    ['rule', 'point']
    """
    frame = to_frame(
        ranks, None, ("metric", "system", "mean", "rank", "rank_low", "rank_high"), "ranks"
    )
    metrics = unique(frame, "metric")
    scale = colors or system_colors(unique(frame, "system"))
    if "tied_with_best" not in frame.columns:
        frame = frame.with_columns(pl.lit(None, dtype=pl.Boolean).alias("tied_with_best"))
    frame = frame.with_columns(
        tied=pl.when(pl.col("tied_with_best")).then(pl.lit("tied with the best"))
        .when(pl.col("tied_with_best").not_()).then(pl.lit("worse than the best"))
        .otherwise(pl.lit("not tested"))
    )  # fmt: skip
    lowest = max(1, *(int(r) for r in frame["rank_high"].drop_nulls().to_list()))
    order = frame.sort("rank", maintain_order=True)["system"].unique(maintain_order=True)
    base = alt.Chart(inline_frame(frame, max_rows, "ranks")).encode(
        y=alt.Y("system:N", sort=order.to_list(), title=None),
        color=alt.Color("system:N", scale=scale, legend=None),
    )
    x = alt.X(
        "rank_low:Q",
        scale=alt.Scale(domain=[0.5, lowest + 0.5], nice=False, zero=False),
        axis=alt.Axis(values=list(range(1, lowest + 1)), format="d"),
        title="rank (1 = best)",
    )
    tooltip = [
        alt.Tooltip("system:N"),
        alt.Tooltip("metric:N"),
        alt.Tooltip("mean:Q", format=VALUE_FORMAT),
        alt.Tooltip("rank:Q"),
        alt.Tooltip("rank_low:Q", title="interval from"),
        alt.Tooltip("rank_high:Q", title="interval to"),
        alt.Tooltip("tied:N", title="against the best"),
    ]
    bars = base.mark_rule(strokeWidth=3).encode(x=x, x2="rank_high:Q", tooltip=tooltip)
    points = base.mark_point(size=80, strokeWidth=2).encode(
        x=alt.X("rank:Q"),
        fill=alt.condition(
            "datum.tied_with_best", alt.Color("system:N", scale=scale), alt.value("white")
        ),
        tooltip=tooltip,
    )
    layered = alt.layer(bars, points).properties(
        width=max(200, 36 * lowest), height=max(80, 22 * len(order))
    )
    heading = title(
        "Rank of each system, with its bootstrap interval",
        "filled: not significantly worse than the best",
    )
    if len(metrics) == 1:
        single: alt.TopLevelMixin = layered.properties(title=heading)
        return single
    faceted: alt.TopLevelMixin = layered.facet(
        column=alt.Column("metric:N", sort=metrics, title=None)
    ).properties(title=heading)
    return faceted
