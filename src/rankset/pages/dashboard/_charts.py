"""The dashboard's charts: Vega-Lite specs whose data and parameters the page sets.

Each chart reads a named dataset that is empty in the spec, named as the chart is: the
page's script fills it from the embedded data (so the data is written once) and drives the
charts through their parameters (``metric``, ``measure``, ``k``, ``baseline``, ``lower``,
``picked_*``), which the URL fragment holds. Clicks on a quadrant cell or a histogram bar
are read by the script from the clicked mark's datum; hover and legend selections are the
charts' own.

The charts the report draws too (curves, the diagnostic matrix, the history, the suite's
heatmap, the judges' leaderboards and calibration) come from the one builder in
:mod:`rankset.charts`, given the dataset's name; the
summary and the histogram of differences are the dashboard's alone. Every chart colours a
system with :func:`rankset.charts.system_colors` of the analysis's systems, as the report
does.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

import altair as alt

from rankset import charts
from rankset.charts import THEME, system_colors
from rankset.comparison import higher_is_better

__all__ = ["CHART_IDS", "chart_specs"]

#: Element id of each chart, by the name the page's script knows it by.
CHART_IDS: Final = {
    "summary": "chart-summary",
    "curves": "chart-curves",
    "diagnosis": "chart-diagnosis",
    "differences": "chart-differences",
    "history": "chart-history",
    "collections": "chart-collections",
    "judges": "chart-judges",
    "calibration": "chart-calibration",
    "costs": "chart-costs",
}
_OUTCOMES: Final = ("B better", "tie", "A better")
_OUTCOME_COLORS: Final = ("#1a7f37", "#8c959f", "#cf222e")
_WIDTH: Final = 380
# The cell the query list is filtered by (the page sets both parameters).
_PICKED_CELL: Final = "datum.system === picked_system && datum.quadrant === picked_quadrant"


def _summary_chart(
    systems: Sequence[str], colors: alt.Scale, metric: str, baseline: str
) -> alt.TopLevelMixin:
    """Mean and confidence interval of every system on the chosen metric."""
    metric_param = alt.param(name="metric", value=metric)
    baseline_param = alt.param(name="baseline", value=baseline)
    base = (
        alt.Chart(alt.NamedData("summary"))
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


def _curves_chart(colors: alt.Scale, measure: str, k: int) -> alt.TopLevelMixin:
    """Mean of the chosen measure at every cutoff; a rule marks the page's k."""
    return charts.curves_chart(
        "curves",
        metrics=alt.param(name="measure", value=measure),
        colors=colors,
        cutoff=alt.param(name="k", value=k),
    ).properties(width=_WIDTH, height=220)


def _diagnosis_chart(systems: Sequence[str], k: int) -> alt.TopLevelMixin:
    """Count queries per system and quadrant; outline the cell the list is filtered by."""
    return (
        charts.diagnostic_matrix("diagnosis", systems=systems, k=k, picked=_PICKED_CELL)
        .add_params(
            alt.param(name="picked_system", value=None),
            alt.param(name="picked_quadrant", value=None),
        )
        .properties(
            title=alt.Title(
                f"Diagnostic matrix at K = {k}", subtitle="Click a cell to list its queries"
            )
        )
    )


def _differences_chart() -> alt.TopLevelMixin:
    """Draw the histogram of the per-query differences B − A; outline the picked bar."""
    picked = alt.param(name="picked_bin", value=None)
    hover = alt.selection_point(name="bar_hover", on="pointerover", fields=["lo", "outcome"])
    chart: alt.TopLevelMixin = (
        alt.Chart(alt.NamedData("differences"))
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
    judges: bool = False,
    calibration: bool = False,
    costs: Sequence[str] | None = None,
) -> dict[str, dict[str, Any]]:
    """Return the Vega-Lite spec of each chart, themed, keyed by the names of CHART_IDS.

    The curves chart is left out without a ``measure``, the matrix without ``diagnosis_k``,
    the history chart without ``history``, the suite's heatmap without ``collections``,
    the judges' leaderboards without ``judges`` and their calibration without
    ``calibration``, the quality-versus-cost chart without ``costs`` (the cost columns;
    with several, a menu in the chart picks one).
    """
    colors = system_colors(systems)  # a system's colour in every chart, as in the report
    specs: dict[str, alt.TopLevelMixin] = {
        "summary": _summary_chart(systems, colors, metric, baseline),
        "differences": _differences_chart(),
    }
    if measure is not None:
        specs["curves"] = _curves_chart(colors, measure, k)
    if diagnosis_k is not None:
        specs["diagnosis"] = _diagnosis_chart(systems, diagnosis_k)
    if history:
        specs["history"] = charts.history_chart(
            "history", alt.param(name="metric", value=metric), colors=colors
        )
    if collections is not None:
        specs["collections"] = charts.suite_heatmap(
            "collections",
            alt.param(name="metric", value=metric),
            collections=collections,
            lower=alt.param(name="lower", value=not higher_is_better(metric)),
        )
    if judges:
        specs["judges"] = charts.judges_chart(
            "judges", alt.param(name="metric", value=metric), colors=colors
        )
    if calibration:
        specs["calibration"] = charts.calibration_chart("calibration")
    if costs:
        cost = alt.param(name="cost", value=costs[0])
        if len(costs) > 1:  # a menu in the chart picks the cost column
            cost = alt.param(
                name="cost",
                value=costs[0],
                bind=alt.binding_select(options=list(costs), name="cost "),
            )
        specs["costs"] = charts.cost_quality_chart(
            "costs", alt.param(name="metric", value=metric), cost, colors=colors
        )
    with alt.theme.enable(THEME):
        return {name: chart.to_dict() for name, chart in specs.items()}
