"""The dashboard's charts: Vega-Lite specs whose data and parameters the page sets.

Each chart reads a named dataset that is empty in the spec: the page's script fills it
from the embedded data (so the data is written once) and drives the charts through their
parameters (``metric``, ``k``, ``baseline``, ``picked``), which the URL fragment holds.
Clicks on a quadrant cell or a histogram bar are read by the script from the clicked
mark's datum; hover and legend selections are the charts' own.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

import altair as alt

from rankset.charts import THEME, system_colors
from rankset.diagnosis.quadrants import QUADRANTS
from rankset.pages.dashboard._suite import suite_chart

__all__ = ["CHART_IDS", "UNCLASSIFIED", "chart_specs"]

#: Element id of each chart, by the name the page's script knows it by.
CHART_IDS: Final = {
    "summary": "chart-summary",
    "curves": "chart-curves",
    "diagnosis": "chart-diagnosis",
    "differences": "chart-differences",
    "history": "chart-history",
    "collections": "chart-collections",
}
# The diagnosis's quadrant colours (rankset.charts draws its matrix with the same).
_QUADRANT_COLORS: Final = ("#009E73", "#E69F00", "#56B4E9", "#D55E00", "#8c959f")
#: The column of the queries no quadrant holds (no useful labelled evidence).
UNCLASSIFIED: Final = "unclassified"
_COLUMNS: Final = (*QUADRANTS, UNCLASSIFIED)
# A cell's text: its count, and its share of the system's classifiable queries.
_CELL_LABEL: Final = (
    "datum.n_queries + (datum.share == null ? '' : ' (' + format(datum.share, '.0%') + ')')"
)
_OUTCOMES: Final = ("B better", "tie", "A better")
_OUTCOME_COLORS: Final = ("#1a7f37", "#8c959f", "#cf222e")
_WIDTH: Final = 380
# The cell the query list is filtered by (the page sets both parameters).
_PICKED_CELL: Final = "datum.system === picked_system && datum.quadrant === picked_quadrant"


def _data(name: str) -> alt.Data:
    return alt.Data(name=name)  # type: ignore[no-untyped-call]


def _summary_chart(systems: Sequence[str], metric: str, baseline: str) -> alt.TopLevelMixin:
    """Mean and confidence interval of every system on the chosen metric."""
    metric_param = alt.param(name="metric", value=metric)
    baseline_param = alt.param(name="baseline", value=baseline)
    colors = system_colors(systems)
    base = (
        alt.Chart(_data("summary"))
        .transform_filter("datum.metric === metric")
        .encode(y=alt.Y("system:N", sort=list(systems), title=None))
    )
    interval = base.mark_rule(strokeWidth=2).encode(
        x=alt.X("ci_low:Q", title="mean with 95% CI", scale=alt.Scale(zero=False)),
        x2="ci_high:Q",
        color=alt.Color("system:N", scale=colors, legend=None),
    )
    hover = alt.selection_point(name="summary_hover", on="pointerover", fields=["system"])
    points = base.mark_point(filled=True, size=90).encode(
        x="mean:Q",
        color=alt.Color("system:N", scale=colors, legend=None),
        shape=alt.condition("datum.system === baseline", alt.value("diamond"), alt.value("circle")),
        size=alt.condition(hover, alt.value(160), alt.value(90)),
        tooltip=[
            alt.Tooltip("system:N"),
            alt.Tooltip("metric:N"),
            alt.Tooltip("mean:Q", format=".4f"),
            alt.Tooltip("ci_low:Q", format=".4f", title="CI low"),
            alt.Tooltip("ci_high:Q", format=".4f", title="CI high"),
            alt.Tooltip("n_queries:Q", title="queries"),
        ],
    )
    return (
        alt.layer(interval, points.add_params(hover))
        .add_params(metric_param, baseline_param)
        .properties(width=_WIDTH, height=alt.Step(26), title="Mean per system")
    )


def _curves_chart(systems: Sequence[str], measure: str, k: int) -> alt.TopLevelMixin:
    """Mean of the chosen measure at every cutoff; a rule marks the page's k."""
    measure_param = alt.param(name="measure", value=measure)
    k_param = alt.param(name="k", value=k)
    legend = alt.selection_point(name="curves_legend", fields=["system"], bind="legend")
    colors = system_colors(systems)
    base = alt.Chart(_data("curves")).transform_filter("datum.metric === measure")
    color = alt.Color(
        "system:N",
        scale=colors,
        sort=list(systems),
        title="system",
        legend=alt.Legend(symbolOpacity=1, symbolType="stroke", symbolStrokeWidth=3),
    )
    opacity = alt.condition(legend, alt.value(1.0), alt.value(0.15))
    band = base.mark_area(opacity=0.12).encode(
        x=alt.X("k:Q", title="cutoff k", axis=alt.Axis(tickMinStep=1)),
        y=alt.Y("ci_low:Q", title="mean"),
        y2="ci_high:Q",
        color=color,
    )
    line = (
        base.mark_line(point=alt.OverlayMarkDef(size=20))
        .encode(
            x="k:Q",
            y="mean:Q",
            color=color,
            opacity=opacity,
            tooltip=[
                alt.Tooltip("system:N"),
                alt.Tooltip("k:Q"),
                alt.Tooltip("mean:Q", format=".4f"),
                alt.Tooltip("ci_low:Q", format=".4f", title="CI low"),
                alt.Tooltip("ci_high:Q", format=".4f", title="CI high"),
            ],
        )
        .add_params(legend)
    )
    rule = (
        alt.Chart(_data("curves"))
        .transform_filter("datum.metric === measure && datum.k === k")
        .transform_aggregate(k="min(k)")
        .mark_rule(color="#59636e", strokeDash=[4, 3])
        .encode(x="k:Q")
    )
    at_k = (
        base.transform_filter("datum.k === k")
        .mark_point(filled=True, size=80)
        .encode(x="k:Q", y="mean:Q", color=color)
    )
    return (
        alt.layer(band, line, rule, at_k)
        .add_params(measure_param, k_param)
        .properties(width=_WIDTH, height=220, title="Metric vs k")
    )


def _diagnosis_chart(systems: Sequence[str], k: int) -> alt.TopLevelMixin:
    """Count queries per system and quadrant; outline the cell the list is filtered by."""
    picked = [
        alt.param(name="picked_system", value=None),
        alt.param(name="picked_quadrant", value=None),
    ]
    hover = alt.selection_point(name="cell_hover", on="pointerover", fields=["system", "quadrant"])
    base = alt.Chart(_data("diagnosis")).encode(
        x=alt.X(
            "quadrant:N",
            sort=list(_COLUMNS),
            title=None,
            axis=alt.Axis(orient="top", labelAngle=0),
        ),
        y=alt.Y("system:N", sort=list(systems), title=None),
    )
    cells = base.mark_rect(cursor="pointer").encode(
        color=alt.Color(
            "quadrant:N",
            scale=alt.Scale(domain=list(_COLUMNS), range=list(_QUADRANT_COLORS)),
            legend=None,
        ),
        opacity=alt.Opacity(
            "share:Q", scale=alt.Scale(domain=[0, 1], range=[0.12, 0.9]), legend=None
        ),
        stroke=alt.when(_PICKED_CELL)
        .then(alt.value("#1f2328"))
        .when(hover)
        .then(alt.value("#59636e"))
        .otherwise(alt.value(None)),
        strokeWidth=alt.when(_PICKED_CELL).then(alt.value(3)).otherwise(alt.value(1.5)),
        tooltip=[
            alt.Tooltip("system:N"),
            alt.Tooltip("quadrant:N"),
            alt.Tooltip("n_queries:Q", title="queries"),
            alt.Tooltip("share:Q", format=".1%"),
        ],
    )
    labels = (
        base.mark_text(fontSize=13, cursor="pointer")
        .encode(
            text=alt.Text("label:N"),
            color=alt.value("#1f2328"),
        )
        .transform_calculate(label=_CELL_LABEL)
    )
    return (
        alt.layer(cells.add_params(hover), labels)
        .add_params(*picked)
        .properties(
            width=alt.Step(118),
            height=alt.Step(30),
            title=alt.Title(
                f"Diagnostic matrix at k = {k}",
                subtitle="Click a cell to list its queries",
            ),
        )
    )


def _differences_chart() -> alt.TopLevelMixin:
    """Draw the histogram of the per-query differences B − A; outline the picked bar."""
    picked = alt.param(name="picked_bin", value=None)
    hover = alt.selection_point(name="bar_hover", on="pointerover", fields=["lo", "outcome"])
    chart: alt.TopLevelMixin = (
        alt.Chart(_data("differences"))
        .mark_bar(cursor="pointer", stroke="#1f2328")
        .encode(
            x=alt.X("lo:Q", bin="binned", title="difference B − A"),
            x2="hi:Q",
            y=alt.Y("count:Q", stack=True, title="queries"),
            color=alt.Color(
                "outcome:N",
                scale=alt.Scale(domain=list(_OUTCOMES), range=list(_OUTCOME_COLORS)),
                sort=list(_OUTCOMES),
                title=None,
                legend=alt.Legend(orient="top"),
            ),
            opacity=alt.condition(
                "picked_bin === null || datum.lo === picked_bin", alt.value(0.9), alt.value(0.3)
            ),
            strokeWidth=alt.when("datum.lo === picked_bin")
            .then(alt.value(2))
            .when(hover)
            .then(alt.value(1))
            .otherwise(alt.value(0)),
            tooltip=[
                alt.Tooltip("lo:Q", format=".3f", title="from"),
                alt.Tooltip("hi:Q", format=".3f", title="to"),
                alt.Tooltip("outcome:N"),
                alt.Tooltip("count:Q", title="queries"),
            ],
        )
        .add_params(picked, hover)
        .properties(width=_WIDTH, height=160, title="Per-query differences (click a bar)")
    )
    return chart


def _history_chart(metric: str) -> alt.TopLevelMixin:
    """Draw a metric's logged mean over the store's entries, one line per system.

    Drawn as :func:`rankset.experiments.history_chart` draws it (time on x, the band the
    bootstrap interval), on the page's ``metric``.
    """
    metric_param = alt.param(name="metric", value=metric)
    base = alt.Chart(_data("history")).transform_filter("datum.metric === metric")
    x = alt.X("time:T", title="logged", scale=alt.Scale(padding=12))
    color = alt.Color(
        "system:N",
        title="system",
        legend=alt.Legend(symbolOpacity=1, symbolType="stroke", symbolStrokeWidth=3),
    )
    scale = alt.Scale(zero=False)
    band = base.mark_area(opacity=0.15).encode(
        x=x, y=alt.Y("ci_low:Q", scale=scale), y2="ci_high:Q", color=color
    )
    line = base.mark_line(point=True).encode(
        x=x,
        y=alt.Y("mean:Q", title="mean", scale=scale),
        color=color,
        tooltip=[
            alt.Tooltip("entry_id:N", title="entry"),
            alt.Tooltip("time:T", title="logged", format="%Y-%m-%d %H:%M"),
            alt.Tooltip("system:N"),
            alt.Tooltip("tag:N"),
            alt.Tooltip("mean:Q", format=".4f"),
            alt.Tooltip("ci_low:Q", format=".4f", title="CI low"),
            alt.Tooltip("ci_high:Q", format=".4f", title="CI high"),
        ],
    )
    return (
        alt.layer(band, line)
        .add_params(metric_param)
        .properties(
            width=560,
            height=260,
            title=alt.Title(alt.ExprRef("metric + ' over logged entries'")),
        )
    )


def chart_specs(
    systems: Sequence[str],
    *,
    metric: str,
    measure: str | None,
    baseline: str,
    k: int,
    diagnosis_k: int | None,
    history: bool = False,
    collections: Sequence[str] | None = None,
) -> dict[str, dict[str, Any]]:
    """Return the Vega-Lite spec of each chart, themed, keyed by the names of CHART_IDS.

    The curves chart is left out without a ``measure``, the matrix without ``diagnosis_k``,
    the history chart without ``history``, the suite's heatmap without ``collections``.
    """
    charts: dict[str, alt.TopLevelMixin] = {
        "summary": _summary_chart(systems, metric, baseline),
        "differences": _differences_chart(),
    }
    if measure is not None:
        charts["curves"] = _curves_chart(systems, measure, k)
    if diagnosis_k is not None:
        charts["diagnosis"] = _diagnosis_chart(systems, diagnosis_k)
    if history:
        charts["history"] = _history_chart(metric)
    if collections is not None:
        charts["collections"] = suite_chart(metric, collections)
    with alt.theme.enable(THEME):
        return {name: chart.to_dict() for name, chart in charts.items()}
