"""The report's cost section: each system's costs beside its quality, the Pareto front marked.

The costs are the evaluation's (:attr:`rankset.EvaluationResult.costs`: mean, p50 and p95
per system and cost column); the points and their front are the analysis's
(:attr:`rankset.pages.Analysis.cost_quality`). The section draws the chart of the first
metric against each cost column (:func:`rankset.charts.cost_quality_chart`, the builder
the dashboard draws with) and a table of the costs with the front of the first metric.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import polars as pl

from rankset import charts
from rankset.pages.report._html import esc, table

__all__ = ["MAX_COST_CHARTS", "costs_section"]

#: The most cost columns the section draws a chart for.
MAX_COST_CHARTS: Final = 4


def costs_section(
    costs: pl.DataFrame, cost_quality: pl.DataFrame | None, systems: Sequence[str]
) -> str:
    """Chart the first metric against each cost and tabulate every system's costs.

    Parameters
    ----------
    costs
        ``system, cost, mean, p50, p95, n_queries`` (an evaluation's ``costs``).
    cost_quality
        :func:`rankset.comparison.cost_quality` of the evaluation (None: no metric, no
        chart).
    systems
        The report's systems, in order, for their colours.

    Examples
    --------
    >>> from rankset.comparison import cost_quality
    >>> costs = pl.DataFrame({"system": ["a", "b"], "cost": "latency_ms", "mean": [5.0, 9.0],
    ...                       "p50": [4.0, 8.0], "p95": [9.0, 20.0], "n_queries": [3, 3]})
    >>> summary = pl.DataFrame({"system": ["a", "b"], "metric": "rr", "mean": [0.5, 0.4]})
    >>> html = costs_section(costs, cost_quality(summary, costs), ["a", "b"])
    >>> "chart-costs-0" in html, html.count("✓")
    (True, 1)
    """
    colors = charts.system_colors(list(systems))
    columns = [str(c) for c in costs["cost"].unique(maintain_order=True).to_list()]
    metric = None if cost_quality is None or not cost_quality.height else cost_quality["metric"][0]
    parts = [
        '<p class="explain">What each query cost each system (mean, median and 95th '
        "percentile over the scored queries). The charts put the mean cost beside the mean of "
        f"{esc(metric or 'the first metric')}: a filled diamond is on the Pareto front (no other "
        "system is at least as good and as cheap, and better or cheaper); the dashed line joins "
        "the front from the cheapest system up.</p>"
    ]
    shown = costs
    if metric is not None and cost_quality is not None:
        drawn = columns[:MAX_COST_CHARTS]
        chart_html = "".join(
            charts.embed_fragment(
                charts.cost_quality_chart(cost_quality, metric, column, colors=colors),
                f"chart-costs-{number}",
            )
            for number, column in enumerate(drawn)
        )
        parts.append(f'<div class="charts">{chart_html}</div>')
        front = cost_quality.filter(pl.col("metric") == metric).select(
            "system", "cost", "quality", "pareto"
        )
        shown = costs.join(front, on=["system", "cost"], how="left", maintain_order="left")
    spec = [
        ("system", "system", "key"),
        ("cost", "cost", "text"),
        ("mean", "mean", "num"),
        ("p50", "p50", "num"),
        ("p95", "p95", "num"),
        ("n_queries", "queries", "int"),
    ]
    if "pareto" in shown.columns:
        spec += [("quality", f"mean {metric}", "num"), ("pareto", "Pareto front", "mark")]
    caption = "Each system's cost per query: mean, median (p50) and 95th percentile (p95)."
    if metric is not None:
        caption += f" Pareto front: of {metric} against that cost column."
    parts.append(table(shown, spec, caption=caption))
    return "\n".join(parts)
