"""Cost beside quality: per system, the mean, median and 95th percentile of each cost.

:func:`cost_summary` keeps the costs of the (system, query) pairs the evaluation scored
(a costs table without ``system`` belongs to the one system evaluated) and summarises
each cost column: ``mean``, ``p50`` and ``p95``, percentiles interpolated linearly
between the two nearest values (numpy's default ``percentile``). Rows of other systems
are ignored (one table may serve several evaluations); rows of an evaluated system's
queries that were not scored are left out, and a warning says how many.
"""

from __future__ import annotations

from typing import Final

import polars as pl

from rankset._validation import warn_user
from rankset.errors import InputFormatError, RanksetWarning
from rankset.io import COST_COLUMNS, IntoCosts, read_costs

__all__ = ["COST_SUMMARY_COLUMNS", "cost_summary"]

#: The columns of :attr:`EvaluationResult.costs`.
COST_SUMMARY_COLUMNS: Final = ("system", "cost", "mean", "p50", "p95", "n_queries")


def cost_summary(costs: IntoCosts, per_query: pl.DataFrame, systems: list[str]) -> pl.DataFrame:
    """One row per (system, cost column): mean, p50 and p95 over the scored queries.

    Examples
    --------
    >>> per_query = pl.DataFrame({"system": ["a"] * 3, "query_id": ["q1", "q2", "q3"]})
    >>> costs = pl.DataFrame({"query_id": ["q1", "q2", "q3"], "latency_ms": [10, 20, 60]})
    >>> cost_summary(costs, per_query, ["a"]).row(0)
    ('a', 'latency_ms', 30.0, 20.0, 56.0, 3)
    """
    table = read_costs(costs)
    if "system" not in table.columns:
        if len(systems) != 1:
            msg = (
                f"The costs table has no system column, but {len(systems)} systems were "
                f"evaluated ({', '.join(systems)}): add a system column."
            )
            raise InputFormatError(msg)
        table = table.with_columns(system=pl.lit(systems[0]))
    # a table may hold other systems' costs too (one file for a gate's two sides): only
    # the rows of the systems evaluated count, and those of unscored queries are said
    table = table.filter(pl.col("system").is_in(systems))
    scored = per_query.select("system", "query_id").unique()
    kept = table.join(scored, on=["system", "query_id"], how="semi")
    dropped = table.height - kept.height
    if dropped:
        warn_user(
            f"{dropped} of {table.height} cost rows of the evaluated systems name a query "
            "the evaluation did not score; they are left out of the costs summary.",
            RanksetWarning,
        )
    present = [column for column in COST_COLUMNS if column in kept.columns]
    order = {name: number for number, name in enumerate(systems)}
    # one row per (system, query, cost column); "cost" is also a cost column's name
    long = kept.unpivot(
        index=["system", "query_id"], on=present, variable_name="_name", value_name="_value"
    ).rename({"_name": "cost"})
    value = pl.col("_value")
    return (
        long.group_by("system", "cost")
        .agg(
            mean=value.mean(),
            p50=value.quantile(0.5, interpolation="linear"),
            p95=value.quantile(0.95, interpolation="linear"),
            n_queries=pl.len().cast(pl.Int64),
        )
        .with_columns(
            _system=pl.col("system").replace_strict(order, default=len(order)),
            _cost=pl.col("cost").replace_strict(
                {name: number for number, name in enumerate(COST_COLUMNS)}
            ),
        )
        .sort("_system", "_cost")
        .select(COST_SUMMARY_COLUMNS)
    )
