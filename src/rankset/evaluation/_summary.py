"""Means with bootstrap confidence intervals for summaries and curves (numpy loaded lazily)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import polars as pl


def summarise_means(
    per_query: pl.DataFrame,
    keys: list[str],
    *,
    outer: Sequence[str] = ("system",),
    confidence: float | None = 0.95,
    n_resamples: int = 1000,
    seed: int = 0,
    geometric: Sequence[str] = (),
) -> pl.DataFrame:
    """Mean, bootstrap CI, query and NA counts per (*outer, *keys) of a tidy frame.

    Rows whose first key is in ``geometric`` hold logarithms (``gm_map``): their mean and
    interval are exponentiated, which makes them a geometric mean and its interval.

    ``per_query`` must be sorted by outer, keys, query_id, with every key of an outer
    group holding the same queries (what evaluation produces): each mean adds its values
    in that query order, as trec_eval does, and each outer group's
    values reshape into a (queries × keys) matrix whose columns share one set of bootstrap
    resamples. ``confidence=None`` leaves the CI columns null.
    """
    import polars as pl

    if confidence is None or per_query.height == 0:
        planned = planned_means(per_query.lazy(), keys, outer=outer, geometric=geometric)
        return planned.collect(engine="in-memory")
    outer = list(outer)
    group = [*outer, *keys]
    # numpy (through rankset.stats) only for the intervals: about 70 ms of a first call.
    import numpy as np

    from rankset.stats.paired import bootstrap_column_mean_cis

    # Each outer group's (key, query) values are contiguous, keys in turn: one
    # numpy view per group, the intervals written in the order of the groups' keys.
    labels = per_query.select(group).unique(maintain_order=True)
    sizes = labels.group_by(outer, maintain_order=True).len()["len"].to_numpy()
    rows = per_query.group_by(outer, maintain_order=True).len()["len"].to_numpy()
    values = per_query["value"].to_numpy().astype("float64", copy=False)
    intervals = np.empty((labels.height, 2))
    row = label = 0
    for n_keys, n_rows in zip(sizes.tolist(), rows.tolist(), strict=True):
        matrix = values[row : row + n_rows].reshape(n_keys, -1).T
        intervals[label : label + n_keys] = bootstrap_column_mean_cis(
            matrix, confidence=confidence, n_resamples=n_resamples, seed=seed
        )
        row, label = row + n_rows, label + n_keys
    bounds = labels.with_columns(
        ci_low=pl.Series(intervals[:, 0], dtype=pl.Float64),
        ci_high=pl.Series(intervals[:, 1], dtype=pl.Float64),
    ).lazy()
    summary = _means(per_query.lazy(), group).join(
        bounds, on=group, how="left", maintain_order="left"
    )
    return _finished(summary, group, keys, geometric).collect(engine="in-memory")


def planned_means(
    per_query: pl.LazyFrame,
    keys: list[str],
    *,
    outer: Sequence[str] = ("system",),
    geometric: Sequence[str] = (),
) -> pl.LazyFrame:
    """Plan :func:`summarise_means` without intervals (``confidence=None``) on a lazy frame.

    The summary can then be collected with the tidy frame it reads, in one
    ``collect_all``, where :func:`summarise_means` would collect it on its own.

    Examples
    --------
    >>> import polars as pl
    >>> tidy = pl.LazyFrame(
    ...     {"system": "s", "metric": "rr", "query_id": ["q1", "q2"], "value": [1.0, 0.5]}
    ... )
    >>> planned_means(tidy, ["metric"]).collect().row(0)
    ('s', 'rr', 0.75, None, None, 2, 0)
    """
    import polars as pl

    group = [*outer, *keys]
    means = _means(per_query, group).with_columns(
        ci_low=pl.lit(None, dtype=pl.Float64), ci_high=pl.lit(None, dtype=pl.Float64)
    )
    return _finished(means, group, keys, geometric)


def _means(per_query: pl.LazyFrame, group: list[str]) -> pl.LazyFrame:
    """Plan each group's mean, query and NA counts."""
    import polars as pl

    # trec_eval's mean: the values added one by one in query order, then divided.
    value = pl.col("value")
    return per_query.group_by(group, maintain_order=True).agg(
        mean=value.drop_nulls().cum_sum().last() / value.count(),
        n_queries=pl.len(),
        n_na=pl.col("value").null_count(),
    )


def _finished(
    summary: pl.LazyFrame, group: list[str], keys: list[str], geometric: Sequence[str]
) -> pl.LazyFrame:
    """Order the summary's columns; exponentiate the rows of geometric metrics."""
    import polars as pl

    summary = summary.select(*group, "mean", "ci_low", "ci_high", "n_queries", "n_na")
    if not geometric:
        return summary
    logged = pl.col(keys[0]).is_in(list(geometric))
    return summary.with_columns(
        pl.when(logged).then(pl.col(name).exp()).otherwise(pl.col(name)).alias(name)
        for name in ("mean", "ci_low", "ci_high")
    )
