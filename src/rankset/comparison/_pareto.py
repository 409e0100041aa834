"""Quality against cost: each system's mean metric beside its mean cost, the Pareto front marked.

A system is on the Pareto front of a (metric, cost column) when no other system
dominates it: none is at least as good on the metric (by the metric's direction) and at
least as cheap, and strictly better or strictly cheaper. Two systems with the same
quality and the same cost are both on the front. A system without a mean (no value, or
no cost) is on no front and dominates nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import polars as pl

from rankset.comparison._inputs import higher_is_better
from rankset.errors import SchemaError

__all__ = ["COST_QUALITY_COLUMNS", "cost_quality"]

#: The columns of :func:`cost_quality`, in order.
COST_QUALITY_COLUMNS: Final = (
    "system",
    "metric",
    "cost",
    "quality",
    "cost_mean",
    "cost_p50",
    "cost_p95",
    "pareto",
)


def cost_quality(
    summary: pl.DataFrame, costs: pl.DataFrame, metrics: Sequence[str] | None = None
) -> pl.DataFrame:
    """Return each system's mean metric beside its mean cost, and whether it is on the front.

    Parameters
    ----------
    summary
        ``system, metric, mean``: an evaluation's summary
        (:attr:`rankset.EvaluationResult.summary`).
    costs
        ``system, cost, mean, p50, p95``: its costs (:attr:`rankset.EvaluationResult.costs`).
    metrics
        The metrics to keep, in order (default: every metric of ``summary``).

    Returns
    -------
    polars.DataFrame
        One row per (system, metric, cost column): ``system, metric, cost, quality`` (the
        metric's mean), ``cost_mean, cost_p50, cost_p95`` and ``pareto`` (True on the front
        of that metric and cost column), in the order of the metrics, the cost columns
        and the systems as given. Systems without costs are left out.

    Examples
    --------
    >>> summary = pl.DataFrame({"system": ["bm25", "dense", "llm", "slow"],
    ...                         "metric": "ndcg@10", "mean": [0.48, 0.62, 0.70, 0.60]})
    >>> costs = pl.DataFrame({"system": ["bm25", "dense", "llm", "slow"],
    ...                       "cost": "latency_ms", "mean": [10.0, 40.0, 900.0, 50.0],
    ...                       "p50": 0.0, "p95": 0.0})
    >>> cost_quality(summary, costs).select("system", "pareto").rows()
    [('bm25', True), ('dense', True), ('llm', True), ('slow', False)]
    """
    for frame, name, needed in (
        (summary, "summary", ("system", "metric", "mean")),
        (costs, "costs", ("system", "cost", "mean", "p50", "p95")),
    ):
        missing = [column for column in needed if column not in frame.columns]
        if missing:
            msg = f"The {name} frame lacks the columns {missing}; pass an EvaluationResult's."
            raise SchemaError(msg)
    kept = summary["metric"].unique(maintain_order=True).to_list() if metrics is None else metrics
    metric_order = {str(name): number for number, name in enumerate(kept)}
    system_order = {
        str(name): number
        for number, name in enumerate(summary["system"].unique(maintain_order=True).to_list())
    }
    cost_order = {
        str(name): number for number, name in enumerate(costs["cost"].unique(maintain_order=True))
    }
    points = (
        summary.filter(pl.col("metric").is_in(list(metric_order)))
        .select("system", "metric", quality=pl.col("mean").fill_nan(None))
        .join(
            costs.select(
                "system",
                "cost",
                cost_mean=pl.col("mean"),
                cost_p50=pl.col("p50"),
                cost_p95=pl.col("p95"),
            ),
            on="system",
        )
        .with_columns(
            # the quality as "higher is better", whatever the metric's direction
            _better=pl.col("quality")
            * pl.col("metric").replace_strict(
                {name: 1.0 if higher_is_better(name) else -1.0 for name in metric_order},
                return_dtype=pl.Float64,
            )
        )
    )
    others = points.select(
        "metric", "cost", _other="system", _o_better="_better", _o_cost="cost_mean"
    )
    dominated = (
        points.join(others, on=["metric", "cost"])
        .filter(
            (pl.col("_other") != pl.col("system"))
            & (pl.col("_o_better") >= pl.col("_better"))
            & (pl.col("_o_cost") <= pl.col("cost_mean"))
            & (
                (pl.col("_o_better") > pl.col("_better"))
                | (pl.col("_o_cost") < pl.col("cost_mean"))
            )
        )
        .select("system", "metric", "cost")
        .unique()
    )
    return (
        points.join(dominated, on=["system", "metric", "cost"], how="anti")
        .select("system", "metric", "cost", _front=pl.lit(True))
        .join(points, on=["system", "metric", "cost"], how="right")
        .with_columns(
            pareto=pl.col("_front").fill_null(False)
            & pl.col("_better").is_not_null()
            & pl.col("cost_mean").is_not_null(),
            _m=pl.col("metric").replace_strict(metric_order, return_dtype=pl.Int64),
            _c=pl.col("cost").replace_strict(cost_order, return_dtype=pl.Int64),
            _s=pl.col("system").replace_strict(system_order, return_dtype=pl.Int64),
        )
        .sort("_m", "_c", "_s")
        .select(COST_QUALITY_COLUMNS)
    )
