"""Vectorised bootstrap of means, shared by summaries and curves (numpy imported lazily)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt
    import polars as pl

# Resamples per block: bounds the (block × queries) weight matrix to a few MB.
_BLOCK = 256


def bootstrap_mean_cis(
    values: npt.NDArray[np.float64],
    *,
    confidence: float = 0.95,
    n_resamples: int = 1000,
    seed: int = 0,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Percentile bootstrap CIs of the column means of a (queries × columns) matrix.

    Queries are resampled with replacement, the same resamples for every column, so the
    columns of one system (metrics, or cutoffs of a curve) share one set of draws. NaN is
    NA: each column's mean skips its NaNs; a column with no value gets NaN bounds.

    Examples
    --------
    >>> import numpy as np
    >>> low, high = bootstrap_mean_cis(np.array([[1.0, 2.0], [1.0, np.nan]]))
    >>> low.tolist(), high.tolist()
    ([1.0, 2.0], [1.0, 2.0])
    """
    import numpy as np

    matrix = np.asarray(values, dtype=np.float64)
    if matrix.ndim == 1:
        matrix = matrix[:, None]
    n_rows, n_cols = matrix.shape
    if n_rows == 0:
        nan = np.full(n_cols, np.nan)
        return nan, nan.copy()
    present = ~np.isnan(matrix)
    filled = np.where(present, matrix, 0.0)
    rng = np.random.default_rng(seed)
    uniform = np.full(n_rows, 1.0 / n_rows)
    means = np.empty((n_resamples, n_cols))
    for start in range(0, n_resamples, _BLOCK):
        size = min(_BLOCK, n_resamples - start)
        weights = rng.multinomial(n_rows, uniform, size=size).astype(np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            means[start : start + size] = (weights @ filled) / (weights @ present)
    tail = (1.0 - confidence) / 2.0
    low = np.full(n_cols, np.nan)
    high = np.full(n_cols, np.nan)
    # A column with a value has a finite mean in every resample that drew it; a resample
    # that drew none of its values gives NaN, which the quantiles skip.
    has_value = present.any(axis=0)
    if n_resamples and has_value.any():
        kept = means[:, has_value]
        low[has_value] = np.nanquantile(kept, tail, axis=0)
        high[has_value] = np.nanquantile(kept, 1.0 - tail, axis=0)
    return low, high


def summarise_means(
    per_query: pl.DataFrame,
    keys: list[str],
    *,
    outer: Sequence[str] = ("system",),
    confidence: float | None = 0.95,
    n_resamples: int = 1000,
    seed: int = 0,
) -> pl.DataFrame:
    """Mean, bootstrap CI, query and NA counts per (*outer, *keys) of a tidy frame.

    ``per_query`` must be sorted by outer, keys, query_id, with every key of an outer
    group holding the same queries (what evaluation produces), so each outer group's
    values reshape into a (queries × keys) matrix whose columns share one set of bootstrap
    resamples. ``confidence=None`` leaves the CI columns null.
    """
    import polars as pl

    outer = list(outer)
    group = [*outer, *keys]
    means = per_query.group_by(group, maintain_order=True).agg(
        mean=pl.col("value").mean(),
        n_queries=pl.len(),
        n_na=pl.col("value").null_count(),
    )
    if confidence is None or per_query.height == 0:
        bounds = means.select(*group).with_columns(
            ci_low=pl.lit(None, dtype=pl.Float64), ci_high=pl.lit(None, dtype=pl.Float64)
        )
    else:
        pieces = []
        for names, rows in per_query.group_by(outer, maintain_order=True):
            labels = rows.select(keys).unique(maintain_order=True)
            matrix = rows["value"].to_numpy().astype("float64").reshape(labels.height, -1).T
            low, high = bootstrap_mean_cis(
                matrix, confidence=confidence, n_resamples=n_resamples, seed=seed
            )
            pieces.append(
                labels.with_columns(
                    *(
                        pl.lit(value, dtype=per_query.schema[name]).alias(name)
                        for name, value in zip(outer, names, strict=True)
                    ),
                    ci_low=pl.Series(low.tolist(), dtype=pl.Float64),
                    ci_high=pl.Series(high.tolist(), dtype=pl.Float64),
                )
            )
        bounds = pl.concat(pieces)
    return means.join(bounds, on=group, how="left", maintain_order="left").select(
        *group, "mean", "ci_low", "ci_high", "n_queries", "n_na"
    )
