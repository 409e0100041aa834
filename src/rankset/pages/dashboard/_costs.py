"""The dashboard's cost data: each system's costs beside its quality, the Pareto front marked.

The rows are the analysis's :attr:`~rankset.pages.Analysis.cost_quality` (every shown
metric against every cost column) with the queries each cost was summarised over; the
overview's chart (:func:`rankset.charts.cost_quality_chart`, the builder the report draws
with) and its cost table read them, on the metric the page picks.
"""

from __future__ import annotations

from typing import Any

import polars as pl

__all__ = ["COST_SECTION", "costs_data"]

#: The overview's cost block (shown when the page holds costs).
COST_SECTION = """<div id="costs-box">
<h2>Cost</h2>
<p class="explain">What each query cost each system (mean, median and 95th percentile over
the scored queries), beside the mean of the metric picked above. A filled diamond is on the
Pareto front: no other system is at least as good and as cheap, and better or cheaper; the
dashed line joins the front from the cheapest system up. The chart's menu picks the cost.</p>
<div class="charts"><div><div id="chart-costs"></div></div></div>
<table id="costs-table"></table>
</div>"""


def costs_data(
    cost_quality: pl.DataFrame | None, costs: pl.DataFrame | None
) -> dict[str, Any] | None:
    """Return the page's ``costs``: the cost columns and one row per (system, metric, cost).

    None without costs. A row has ``system, metric, cost, quality, cost_mean, cost_p50,
    cost_p95, pareto, n_queries`` (NaN as null).

    Examples
    --------
    >>> from rankset.comparison import cost_quality
    >>> costs = pl.DataFrame({"system": ["a", "b"], "cost": "latency_ms", "mean": [5.0, 9.0],
    ...                       "p50": [4.0, 8.0], "p95": [9.0, 20.0], "n_queries": [3, 3]})
    >>> summary = pl.DataFrame({"system": ["a", "b"], "metric": "rr", "mean": [0.5, 0.6]})
    >>> data = costs_data(cost_quality(summary, costs), costs)
    >>> data["columns"], [row["pareto"] for row in data["rows"]]
    (['latency_ms'], [True, True])
    """
    if cost_quality is None or costs is None:
        return None
    rows = cost_quality.join(
        costs.select("system", "cost", "n_queries"),
        on=["system", "cost"],
        how="left",
        maintain_order="left",
    )
    floats = [name for name, dtype in rows.schema.items() if dtype.is_float()]
    return {
        "columns": [str(c) for c in costs["cost"].unique(maintain_order=True).to_list()],
        "rows": rows.with_columns(pl.col(floats).fill_nan(None)).to_dicts(),
    }
