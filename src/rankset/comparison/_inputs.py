"""The inputs of the comparisons, checked once: the per-query frame, metrics, options, slices.

Shared by :func:`rankset.compare`, :func:`rankset.compare_all` and the family-wise tests
(:mod:`rankset.comparison.family_tests`); numpy-free, like :mod:`rankset.comparison.pairwise`.
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from rankset._validation import (
    check_fraction,
    check_int,
    did_you_mean,
    missing_columns_message,
    warn_user,
)
from rankset.errors import ParameterError, RanksetWarning, SchemaError, UnknownMetricError
from rankset.evaluation import EvaluationResult
from rankset.measures import greater_is_better, parse_metric

__all__ = [
    "COMPARE_COLUMNS",
    "RELATIVE_DELTA",
    "check_baseline",
    "check_by",
    "check_options",
    "higher_is_better",
    "per_query_frame",
    "query_slices",
    "select_metrics",
    "tidy_values",
    "unreachable_significance",
    "warn_unreachable_significance",
]

#: Columns of the comparison frame; ``by`` columns come right after ``metric``.
COMPARE_COLUMNS = (
    "system",
    "metric",
    "test",
    "n_queries",
    "n_dropped",
    "mean",
    "baseline_mean",
    "delta",
    "relative_delta",
    "ci_low",
    "ci_high",
    "p",
    "p_adj",
    "reject",
    "wins",
    "ties",
    "losses",
)

#: ``delta`` over ``|baseline_mean|`` (0.14: 14% better), null when the baseline's mean
#: is 0: the relative change evaluation services show beside each difference.
RELATIVE_DELTA = (
    pl.when(pl.col("baseline_mean") != 0)
    .then((pl.col("mean") - pl.col("baseline_mean")) / pl.col("baseline_mean").abs())
    .otherwise(None)
)

_CORRECTIONS = ("holm", "bonferroni", "bh")  # = rankset.stats.paired.CORRECTIONS (numpy-free here)
_REQUIRED = ("system", "query_id", "metric", "value")


def per_query_frame(
    result: EvaluationResult | pl.DataFrame | pl.LazyFrame,
) -> tuple[pl.DataFrame, list[str]]:
    if isinstance(result, EvaluationResult):
        frame = result.per_query
        declared = result.metrics
    elif isinstance(result, pl.LazyFrame):
        frame, declared = result.collect(), []
    elif isinstance(result, pl.DataFrame):
        frame, declared = result, []
    else:
        msg = (
            "The 'result' parameter must be an EvaluationResult or a per-query polars "
            f"DataFrame. Got {type(result).__name__} instead."
        )
        raise ParameterError(msg)
    missing = [name for name in _REQUIRED if name not in frame.columns]
    if missing:
        msg = missing_columns_message("The per-query frame", missing, _REQUIRED, frame.columns)
        raise SchemaError(msg)
    # The rows whose 64-bit hash repeats, then the exact check among them alone: the
    # hashes of 10 million rows take 80 MB where their (system, query, metric) strings
    # hashed as rows took 1.4 GB.
    keys = pl.struct("system", "query_id", "metric")
    suspects = frame.filter(keys.hash().is_duplicated())
    repeated = suspects.filter(keys.is_duplicated())
    if repeated.height:
        first = repeated.row(0, named=True)
        msg = (
            f"The per-query frame has {repeated.height} rows that repeat a (system, query_id, "
            f"metric), e.g. ({first['system']!r}, {first['query_id']!r}, {first['metric']!r})."
        )
        raise SchemaError(msg)
    present = frame["metric"].unique(maintain_order=True).to_list()
    known = [name for name in declared if name in present] or present
    return frame, known


def tidy_values(per_query: pl.DataFrame, metrics: Sequence[str]) -> pl.DataFrame:
    """Return ``system, query_id, metric, value`` (String ids, Float64 values) of ``metrics``."""
    return per_query.filter(pl.col("metric").is_in(list(metrics))).select(
        pl.col("system").cast(pl.String),
        pl.col("query_id").cast(pl.String),
        pl.col("metric").cast(pl.String),
        pl.col("value").cast(pl.Float64),
    )


def select_metrics(metrics: Sequence[str] | None, known: list[str]) -> list[str]:
    if metrics is None:
        if not known:
            msg = "The per-query frame holds no metric to compare."
            raise ParameterError(msg)
        return known
    if isinstance(metrics, str):
        metrics = [metrics]
    chosen: list[str] = []
    for raw in metrics:
        name = raw if raw in known else _canonical(raw)
        if name not in known:
            msg = f"The metric {raw!r} is not in the result (metrics: {', '.join(known)})."
            msg += did_you_mean(raw, known)
            raise ParameterError(msg)
        if name not in chosen:
            chosen.append(name)
    if not chosen:
        msg = "The 'metrics' parameter must name at least one metric. Got [] instead."
        raise ParameterError(msg)
    return chosen


def _canonical(name: str) -> str:
    try:
        return parse_metric(name).name
    except UnknownMetricError:
        return name


def higher_is_better(name: str) -> bool:
    """Return whether a higher value of metric ``name`` wins a paired comparison.

    Raises
    ------
    ParameterError
        The name is not a known metric's, so wins and losses cannot be oriented.

    Examples
    --------
    >>> higher_is_better("ndcg@10"), higher_is_better("harm@5")
    (True, False)
    """
    try:
        return greater_is_better(name)
    except UnknownMetricError:
        msg = (
            f"Cannot tell whether a higher {name!r} is better: it is not a known metric "
            "name, so wins and losses cannot be oriented."
        )
        raise ParameterError(msg) from None


def check_options(
    correction: object, alpha: object, seed: object, n_resamples: object, confidence: object
) -> None:
    if correction is not None and correction not in _CORRECTIONS:
        allowed = ", ".join(repr(c) for c in (*_CORRECTIONS, None))
        msg = f"The 'correction' parameter must be one of {allowed}. Got {correction!r} instead."
        raise ParameterError(msg)
    check_fraction("alpha", alpha)
    check_fraction("confidence", confidence)
    check_int("seed", seed, 0)
    check_int("n_resamples", n_resamples, 1)


def check_by(by: str | Sequence[str] | None) -> list[str]:
    columns = [] if by is None else [by] if isinstance(by, str) else list(by)
    reserved = {*COMPARE_COLUMNS, "query_id", "value"}
    for column in columns:
        if not isinstance(column, str) or column in reserved or column.startswith("_"):
            msg = (
                "The 'by' parameter must name metadata columns other than "
                f"{', '.join(sorted(reserved))}. Got {column!r} instead."
            )
            raise ParameterError(msg)
    if len(set(columns)) != len(columns):
        msg = f"The 'by' parameter names a column twice. Got {columns!r} instead."
        raise ParameterError(msg)
    return columns


def check_baseline(baseline: str, systems: list[str]) -> None:
    if baseline in systems:
        return
    msg = (
        f"The 'baseline' parameter must be one of the systems: "
        f"{', '.join(map(repr, systems))}. Got {baseline!r} instead."
    )
    raise ParameterError(msg + did_you_mean(str(baseline), systems))


def query_slices(
    per_query: pl.DataFrame, by: list[str], metadata: pl.DataFrame | None
) -> pl.DataFrame | None:
    """Return ``query_id`` + the ``by`` columns, one row per query (``None`` without ``by``)."""
    if not by:
        return None
    if metadata is None:
        source, where = per_query, "the per-query frame"
    elif isinstance(metadata, pl.DataFrame):
        source, where = metadata, "metadata"
        if "query_id" not in metadata.columns:
            msg = f"The metadata frame must have a 'query_id' column. Got {metadata.columns}."
            raise ParameterError(msg)
    else:
        msg = f"The 'metadata' parameter must be a polars DataFrame. Got {type(metadata)}."
        raise ParameterError(msg)
    missing = [column for column in by if column not in source.columns]
    if missing:
        available = [c for c in source.columns if c != "query_id"]
        msg = (
            f"The 'by' column(s) {', '.join(map(repr, missing))} are not in {where} "
            f"(columns: {', '.join(available) or 'none'})."
        )
        if metadata is None:
            msg += " Pass metadata=<frame with query_id and these columns>."
        raise ParameterError(msg + did_you_mean(missing[0], available))
    slices = source.select(pl.col("query_id").cast(pl.String), *by).unique()
    conflicting = slices.filter(pl.col("query_id").is_duplicated())
    if conflicting.height:
        query = conflicting["query_id"][0]
        msg = (
            f"Each query must belong to one slice, but {where} gives query {query!r} "
            f"several values of {', '.join(by)}."
        )
        raise ParameterError(msg)
    return slices


def unreachable_significance(
    n_rows: int, n_resamples: int, alpha: float, correction: str | None
) -> str | None:
    """Say why the randomization test cannot reach significance after the correction.

    Its smallest p-value is ``1 / (n_resamples + 1)``; Holm and Bonferroni multiply the
    smallest by the number of rows, so with too few resamples no row can be significant,
    whatever the data. (Benjamini-Hochberg leaves a p-value shared by every row as is.)
    ``None`` when some row can be significant.
    """
    if correction not in ("holm", "bonferroni") or n_rows < 2:
        return None
    if n_rows / (n_resamples + 1) < alpha:
        return None
    needed = int(n_rows / alpha)  # then n_rows / (needed + 1) < alpha
    return (
        f"With n_resamples={n_resamples:,}, the randomization test's smallest p-value is "
        f"1/{n_resamples + 1:,}; {correction} over {n_rows:,} rows then rejects nothing at "
        f"alpha={alpha:g}, whatever the data. Use n_resamples >= {needed:,} (CLI "
        "--n-resamples), correction='bh', or the t or Tukey tests."
    )


def warn_unreachable_significance(
    n_rows: int, n_resamples: int, alpha: float, correction: str | None
) -> None:
    """Warn (:class:`RanksetWarning`) with :func:`unreachable_significance`'s message."""
    message = unreachable_significance(n_rows, n_resamples, alpha, correction)
    if message is not None:
        warn_user(message, RanksetWarning)
