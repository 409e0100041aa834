"""Many systems at once: rank intervals, the ANOVA table, replicates of one system.

- :func:`rank_intervals` gives each system's rank with a bootstrap interval over queries,
  and whether it is statistically tied with the best (a family-wise test).
- :func:`anova` is the two-way ANOVA without replication (systems × queries) per metric.
- :func:`average_replicates` averages several runs of one system (seeds, folds) query by
  query before any test, and reports the spread between them.

Like the family-wise tests, the first two use the queries every system scored. The
pairwise comparisons are in :mod:`rankset.comparison.all_pairs`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import polars as pl

from rankset._validation import check_choice, check_fraction, check_int, did_you_mean
from rankset.comparison._inputs import (
    higher_is_better,
    per_query_frame,
    select_metrics,
    tidy_values,
)
from rankset.comparison.family_tests import FAMILY_TESTS, complete_matrix
from rankset.errors import ParameterError
from rankset.evaluation import EvaluationResult

__all__ = ["anova", "average_replicates", "rank_intervals"]

Result = EvaluationResult | pl.DataFrame | pl.LazyFrame


def rank_intervals(
    result: Result,
    *,
    metrics: Sequence[str] | None = None,
    tied_test: str | None = "randomized_tukey",
    alpha: float = 0.05,
    confidence: float = 0.95,
    n_resamples: int = 1_000,
    seed: int = 0,
) -> pl.DataFrame:
    """Each system's rank per metric, its bootstrap interval, and whether it ties the best.

    Queries are those every system scored (a query NA for one system is left out for
    all, as in the family-wise tests). Ranks are competition ranks (1 = best; equal
    means share the better rank); the interval is the percentile interval of the rank
    over query resamples.

    Parameters
    ----------
    result
        An :class:`~rankset.EvaluationResult` or a per-query frame.
    metrics
        Metrics to rank by; by default every metric.
    tied_test
        ``"randomized_tukey"`` (default), ``"tukey"`` or ``None``: the family-wise test
        that decides ``tied_with_best`` (not significantly worse than the best system at
        ``alpha``); ``None`` leaves the column null.
    alpha, confidence, n_resamples, seed
        Level of the test, coverage of the rank interval, resamples (and permutations),
        seed.

    Returns
    -------
    polars.DataFrame
        ``metric, system, n_queries, mean, rank, rank_low, rank_high, tied_with_best``,
        the systems best first within each metric.

    Examples
    --------
    >>> frame = pl.DataFrame(
    ...     {"system": ["a"] * 3 + ["b"] * 3, "query_id": ["q1", "q2", "q3"] * 2,
    ...      "metric": "rr", "value": [1.0, 1.0, 0.5, 0.5, 0.5, 0.0]}
    ... )
    >>> rank_intervals(frame, tied_test=None, n_resamples=100).select(
    ...     "system", "rank", "rank_low", "rank_high"
    ... ).rows()
    [('a', 1, 1, 1), ('b', 2, 2, 2)]
    """
    import numpy as np

    from rankset.stats import multiple

    if tied_test is not None:
        check_choice("tied_test", tied_test, FAMILY_TESTS)
    check_fraction("alpha", alpha)
    check_fraction("confidence", confidence)
    check_int("n_resamples", n_resamples, 1)
    per_query, known = per_query_frame(result)
    names = select_metrics(metrics, known)
    systems = [str(s) for s in per_query["system"].unique(maintain_order=True).to_list()]
    frame = tidy_values(per_query, names)
    pieces = []
    for name in names:
        matrix, _, _ = complete_matrix(frame, systems, name)
        n = matrix.shape[0]
        greater = higher_is_better(name)
        means: list[float | None] = [None] * len(systems)
        ranks: list[int | None] = [None] * len(systems)
        bounds: list[tuple[int | None, int | None]] = [(None, None)] * len(systems)
        tied: list[bool | None] = [None] * len(systems)
        if n > 0:
            means = matrix.mean(axis=0).tolist()
            rank_values, interval = multiple.bootstrap_rank_intervals(
                matrix,
                greater_is_better=greater,
                confidence=confidence,
                n_resamples=n_resamples,
                seed=seed,
            )
            ranks = [int(r) for r in rank_values]
            bounds = [(int(low), int(high)) for low, high in interval.tolist()]
            if tied_test is not None and n >= 2 and len(systems) >= 2:
                if tied_test == "tukey":
                    p = multiple.tukey_hsd(matrix)[1]
                else:
                    p = multiple.randomized_tukey_hsd(matrix, n_resamples=n_resamples, seed=seed)
                best = int(np.argmin(rank_values))
                tied = [bool(i == best or not p[i, best] < alpha) for i in range(len(systems))]
        pieces.append(
            pl.DataFrame(
                {
                    "metric": [name] * len(systems),
                    "system": systems,
                    "n_queries": [n] * len(systems),
                    "mean": means,
                    "rank": ranks,
                    "rank_low": [low for low, _ in bounds],
                    "rank_high": [high for _, high in bounds],
                    "tied_with_best": tied,
                },
                schema={
                    "metric": pl.String,
                    "system": pl.String,
                    "n_queries": pl.UInt32,
                    "mean": pl.Float64,
                    "rank": pl.Int64,
                    "rank_low": pl.Int64,
                    "rank_high": pl.Int64,
                    "tied_with_best": pl.Boolean,
                },
            ).sort("rank", maintain_order=True)
        )
    return pl.concat(pieces)


def anova(result: Result, *, metrics: Sequence[str] | None = None) -> pl.DataFrame:
    """Compute the two-way ANOVA without replication (systems × queries) of each metric.

    Queries are those every system scored. Needs scipy (``pip install "rankset[stats]"``).

    Returns
    -------
    polars.DataFrame
        ``metric, source, df, sum_sq, mean_sq, F, p``; ``source`` is ``system``,
        ``query`` or ``residual`` (whose F and p are null).

    Examples
    --------
    >>> frame = pl.DataFrame(
    ...     {"system": ["a"] * 3 + ["b"] * 3, "query_id": ["q1", "q2", "q3"] * 2,
    ...      "metric": "rr", "value": [0.0, 0.5, 0.0, 1.0, 1.0, 0.5]}
    ... )
    >>> anova(frame).filter(source="system").select("df", pl.col("F").round(9)).rows()
    [(1.0, 16.0)]
    """
    from rankset.stats import multiple

    per_query, known = per_query_frame(result)
    names = select_metrics(metrics, known)
    systems = [str(s) for s in per_query["system"].unique(maintain_order=True).to_list()]
    frame = tidy_values(per_query, names)
    rows: list[dict[str, Any]] = []
    for name in names:
        matrix, _, _ = complete_matrix(frame, systems, name)
        table = multiple.two_way_anova(matrix)
        for source, (df, sum_sq, mean_sq, statistic, p) in table.items():
            rows.append(
                {
                    "metric": name,
                    "source": source,
                    "df": df,
                    "sum_sq": sum_sq,
                    "mean_sq": mean_sq,
                    "F": None if statistic != statistic else statistic,
                    "p": None if p != p else p,
                }
            )
    schema: dict[str, Any] = {"metric": pl.String, "source": pl.String}
    schema |= {column: pl.Float64 for column in ("df", "sum_sq", "mean_sq", "F", "p")}
    return pl.DataFrame(rows, schema=schema)


def average_replicates(
    result: Result, replicates: Mapping[str, str]
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Average several runs of one system (seeds, folds) query by query.

    Parameters
    ----------
    result
        An :class:`~rankset.EvaluationResult` or a per-query frame.
    replicates
        ``{run name: system name}``: the runs mapped to one system are its replicates.
        Runs not listed stay systems of their own.

    Returns
    -------
    tuple of polars.DataFrame
        The per-query frame with one row per (system, query, metric): the mean over the
        replicates that scored the query (NA when none did), ready for :func:`compare_all`
        or :func:`rankset.compare`; and the spread: ``system, metric, n_replicates, mean,
        replicate_sd`` (the standard deviation of the replicates' means), ``replicate_min``
        and ``replicate_max``.

    Examples
    --------
    >>> frame = pl.DataFrame(
    ...     {"system": ["m-1", "m-1", "m-2", "m-2"], "query_id": ["q1", "q2"] * 2,
    ...      "metric": "rr", "value": [1.0, 0.5, 0.5, 0.5]}
    ... )
    >>> per_query, spread = average_replicates(frame, {"m-1": "m", "m-2": "m"})
    >>> per_query.select("system", "query_id", "value").rows()
    [('m', 'q1', 0.75), ('m', 'q2', 0.5)]
    >>> spread.select("n_replicates", "mean", "replicate_min", "replicate_max").row(0)
    (2, 0.625, 0.5, 0.75)
    """
    if not isinstance(replicates, Mapping):
        msg = "The 'replicates' parameter must be a mapping {run name: system name}."
        raise ParameterError(msg)
    per_query, _ = per_query_frame(result)
    runs = [str(s) for s in per_query["system"].unique(maintain_order=True).to_list()]
    unknown = [name for name in replicates if name not in runs]
    if unknown:
        msg = f"The 'replicates' parameter names runs that are not in the result: {unknown!r}."
        raise ParameterError(msg + did_you_mean(str(unknown[0]), runs))
    mapping = {run: str(replicates.get(run, run)) for run in runs}
    systems = list(dict.fromkeys(mapping.values()))
    frame = per_query.select(
        pl.col("system").cast(pl.String).alias("run"),
        pl.col("system").cast(pl.String).replace_strict(mapping).alias("system"),
        pl.col("query_id").cast(pl.String),
        pl.col("metric").cast(pl.String),
        pl.col("value").cast(pl.Float64),
    )
    order = {system: i for i, system in enumerate(systems)}
    averaged = (
        frame.group_by("system", "metric", "query_id", maintain_order=True)
        .agg(pl.col("value").mean())
        .with_columns(_order=pl.col("system").replace_strict(order, return_dtype=pl.Int64))
        .sort("_order", maintain_order=True)
        .drop("_order")
        .select("system", "query_id", "metric", "value")
    )
    run_means = frame.group_by("system", "run", "metric", maintain_order=True).agg(
        pl.col("value").mean().alias("run_mean")
    )
    spread = (
        run_means.group_by("system", "metric", maintain_order=True)
        .agg(
            n_replicates=pl.len().cast(pl.UInt32),
            mean=pl.col("run_mean").mean(),
            replicate_sd=pl.col("run_mean").std(),
            replicate_min=pl.col("run_mean").min(),
            replicate_max=pl.col("run_mean").max(),
        )
        .with_columns(_order=pl.col("system").replace_strict(order, return_dtype=pl.Int64))
        .sort("_order", maintain_order=True)
        .drop("_order")
    )
    return averaged, spread
