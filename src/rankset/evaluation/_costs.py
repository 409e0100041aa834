"""Cost beside quality: per system, the mean, median and 95th percentile of each cost.

:func:`cost_summary` keeps the costs of the (system, query) pairs the evaluation scored
(a costs table without ``system`` belongs to the one system evaluated) and summarises
each cost column: ``mean``, ``p50`` and ``p95``, percentiles interpolated linearly
between the two nearest values (numpy's default ``percentile``). Rows of other systems
are ignored (one table may serve several evaluations); rows of an evaluated system's
queries that were not scored are left out, and a warning says how many.

Without a costs table, :func:`carried_cost_summary` takes the cost columns of the run
tables themselves (a Parquet or CSV run, a frame): a cost given on every (query,
document) row must be the same on all rows of a query, as it is the query's; the rows
of unscored queries are left out without a warning (a run answers queries the labels
may not judge).
"""

from __future__ import annotations

from typing import Final

import polars as pl

from rankset._validation import warn_user
from rankset.errors import InputFormatError, RanksetWarning
from rankset.io import COST_COLUMNS, IntoCosts, read_costs

__all__ = ["COST_SUMMARY_COLUMNS", "carried_cost_summary", "cost_summary", "per_query_costs"]

#: The columns of :attr:`EvaluationResult.costs`.
COST_SUMMARY_COLUMNS: Final = ("system", "cost", "mean", "p50", "p95", "n_queries")


def cost_summary(
    costs: IntoCosts, per_query: pl.DataFrame, systems: list[str], *, warn: bool = True
) -> pl.DataFrame:
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
    if dropped and warn:
        warn_user(
            f"{dropped} of {table.height} cost rows of the evaluated systems name a query "
            "the evaluation did not score; they are left out of the costs summary.",
            RanksetWarning,
        )
    present = [column for column in COST_COLUMNS if column in kept.columns]
    # one row per (system, query, cost column); "cost" is also a cost column's name
    long = kept.unpivot(
        index=["system", "query_id"], on=present, variable_name="_name", value_name="_value"
    ).rename({"_name": "cost"})
    value = pl.col("_value")
    summary = long.group_by("system", "cost").agg(
        mean=value.mean(),
        p50=value.quantile(0.5, interpolation="linear"),
        p95=value.quantile(0.95, interpolation="linear"),
        n_queries=pl.len().cast(pl.Int64),
    )
    return _in_order(summary, systems)


def per_query_costs(source: str, costs: pl.DataFrame) -> pl.DataFrame:
    """Return a run table's cost columns as one row per (system, query).

    ``costs`` has ``system, query_id`` and cost columns, one row per run row; each cost
    must be the same on every row of a query.

    Examples
    --------
    >>> rows = pl.DataFrame({"system": "a", "query_id": ["q1", "q1", "q2"],
    ...                      "latency_ms": [12.0, 12.0, 30.0]})
    >>> per_query_costs("run.parquet", rows).sort("query_id").rows()
    [('a', 'q1', 12.0), ('a', 'q2', 30.0)]
    >>> per_query_costs("run.parquet", rows.with_columns(latency_ms=pl.Series([12.0, 13.0, 30.0])))
    Traceback (most recent call last):
    ...
    rankset.errors.InputFormatError: run.parquet: column latency_ms holds 2 values for query ...
    """
    present = [column for column in COST_COLUMNS if column in costs.columns]
    keys = ["system", "query_id"]
    numbers = costs.select(*keys, *(pl.col(c).cast(pl.Float64, strict=False) for c in present))
    for column in present:
        values = numbers[column]
        bad = (values.is_null() | values.is_nan() | values.is_infinite() | (values < 0)).arg_true()
        if bad.len():
            row = int(bad[0])
            msg = (
                f"{source}, row {row + 1}: cost column {column} must be a finite number >= 0; "
                f"got {costs[column][row]!r}."
            )
            raise InputFormatError(msg)
    grouped = numbers.group_by(keys, maintain_order=True).agg(
        *(pl.col(column).first() for column in present),
        *(pl.col(column).n_unique().alias(f"_n_{column}") for column in present),
    )
    for column in present:
        varying = grouped.filter(pl.col(f"_n_{column}") > 1)
        if varying.height:
            first = varying.row(0, named=True)
            msg = (
                f"{source}: column {column} holds {first[f'_n_{column}']} values for query "
                f"{first['query_id']!r} (system {first['system']!r}); a cost in a run must "
                "be the query's, the same on each of its rows. Give per-document costs "
                "summed per query, or a costs table (costs=, --costs)."
            )
            raise InputFormatError(msg)
    return grouped.select(*keys, *present)


def carried_cost_summary(
    runs: list[tuple[str, pl.LazyFrame]], per_query: pl.DataFrame, systems: list[str]
) -> pl.DataFrame | None:
    """Summarise the cost columns the run tables carry; None when none carries any.

    ``runs``: each run's display name and its ``system, query_id`` and cost columns,
    one row per run row (:attr:`rankset.evaluation._runs.Runs.costs`).
    """
    if not runs:
        return None
    collected = pl.collect_all([frame for _, frame in runs])
    summaries = [
        cost_summary(per_query_costs(source, frame), per_query, systems, warn=False)
        for (source, _), frame in zip(runs, collected, strict=True)
    ]
    return _in_order(pl.concat(summaries), systems)


def _in_order(summary: pl.DataFrame, systems: list[str]) -> pl.DataFrame:
    """Order a summary's rows by system as evaluated, then by cost column as listed."""
    order = {name: number for number, name in enumerate(systems)}
    return (
        summary.with_columns(
            _system=pl.col("system").replace_strict(order, default=len(order)),
            _cost=pl.col("cost").replace_strict(
                {name: number for number, name in enumerate(COST_COLUMNS)}
            ),
        )
        .sort("_system", "_cost")
        .select(COST_SUMMARY_COLUMNS)
    )
