"""The pairs of values that paired comparisons read, on integer codes.

:func:`coded_values` codes a per-query frame's systems, metrics and queries as integers,
:func:`pair_with_baseline` pairs every system's values with a baseline's and
:func:`summarise_pairs` counts and averages each comparison's pairs. With 99 systems x
10,000 queries x 10 metrics the pairs are 9.9 million rows: joined, grouped and sorted
on integers instead of strings, they take a fraction of the memory.
"""

from __future__ import annotations

import polars as pl

from rankset.comparison._inputs import RELATIVE_DELTA

__all__ = [
    "BASE",
    "BASELINE_ORDER",
    "METRIC_ORDER",
    "SYSTEM_ORDER",
    "coded_values",
    "pair_with_baseline",
    "row_key",
    "summarise_pairs",
]

BASE = "_baseline_value"
METRIC_ORDER = "_metric_order"
SYSTEM_ORDER = "_system_order"
BASELINE_ORDER = "_baseline_order"


def coded_values(
    frame: pl.DataFrame, ranks: dict[str, int], order: dict[str, int]
) -> tuple[pl.DataFrame, pl.Series]:
    """``_system_order, _cell, value`` of the metrics in ``order``, and the query ids.

    The codes are a system's rank and ``_cell``: the metric's order x the number of
    queries + the query's position among the frame's query ids sorted (returned).
    """
    queries = frame["query_id"].cast(pl.String).unique().sort()
    systems = sorted(ranks, key=ranks.__getitem__)
    metrics = sorted(order, key=order.__getitem__)

    def code(column: str, names: list[str] | pl.Series) -> pl.Expr:
        return pl.col(column).cast(pl.String).cast(pl.Enum(names)).to_physical()

    coded = (
        frame.lazy()
        .filter(pl.col("metric").cast(pl.String).is_in(metrics))
        .select(
            code("system", systems).alias(SYSTEM_ORDER),
            (
                code("metric", metrics).cast(pl.UInt64) * queries.len()
                + code("query_id", queries).cast(pl.UInt64)
            ).alias("_cell"),
            pl.col("value").cast(pl.Float64),
        )
        .collect()
    )
    return coded, queries


def pair_with_baseline(
    coded: pl.DataFrame, baseline: int, others: list[int], cells: int
) -> pl.DataFrame:
    """One row per (system, metric, query) that the system or the baseline has a row for.

    Joined on one integer per row, ``_cell`` (metric x query) + system x ``cells``, in
    the order (system, metric, query).
    """
    base = coded.filter(pl.col(SYSTEM_ORDER) == baseline).select(
        "_cell", pl.col("value").alias(BASE)
    )
    base_per_system = (
        pl.DataFrame({SYSTEM_ORDER: others}, schema={SYSTEM_ORDER: pl.UInt64})
        .join(base, how="cross")
        .select(row_key(cells), BASE)
    )
    return (
        coded.filter(pl.col(SYSTEM_ORDER) != baseline)
        .select(row_key(cells), "value")
        .join(base_per_system, on="_row", how="full", coalesce=True)
    )


def row_key(cells: int) -> pl.Expr:
    return (pl.col(SYSTEM_ORDER).cast(pl.UInt64) * cells + pl.col("_cell")).alias("_row")


def summarise_pairs(
    pairs: pl.DataFrame, keys: list[str], greater: dict[str, bool], order: dict[str, int]
) -> pl.DataFrame:
    """Each comparison's counts and means, from pairs sorted by comparison and query.

    Wins and ties follow :func:`paired_outcome` (a tie is equal values, else the
    metric's direction decides), counted as booleans rather than outcome strings.
    """
    aligned = pl.col("_aligned")
    value, base = pl.col("value"), pl.col(BASE)
    higher = {order[name]: wins for name, wins in greater.items()}
    higher_wins = pl.col(METRIC_ORDER).replace_strict(higher, return_dtype=pl.Boolean)
    tie = value == base
    better = pl.when(higher_wins).then(value > base).otherwise(value < base)
    return (
        pairs.lazy()
        .group_by(keys, maintain_order=True)
        .agg(
            n_queries=aligned.sum().cast(pl.UInt32),
            n_dropped=(~aligned).sum().cast(pl.UInt32),
            mean=value.filter(aligned).mean(),
            baseline_mean=base.filter(aligned).mean(),
            wins=(aligned & ~tie & better).sum().cast(pl.UInt32),
            ties=(aligned & tie).sum().cast(pl.UInt32),
        )
        .with_columns(
            delta=pl.col("mean") - pl.col("baseline_mean"),
            relative_delta=RELATIVE_DELTA,
            losses=(pl.col("n_queries") - pl.col("wins") - pl.col("ties")).cast(pl.UInt32),
        )
        .collect()
    )
