"""Many systems at once: Tukey's HSD, the randomised Tukey HSD, ANOVA, effect sizes, ranks.

Pure functions over a (queries × systems) matrix of one metric's per-query values, every
query scored for every system (no NaN). :func:`rankset.compare_all` builds its tidy frames
on them. numpy is imported here; scipy (``pip install "rankset[stats]"``) only by the
parametric functions, for the studentized range and F distributions.

Conventions, stated once:

- ``tukey_hsd(paired=True)`` takes the error variance from the two-way ANOVA without
  replication (systems × queries): per-query difficulty is removed, as in Sakai's
  *Statistical Reform in Information Retrieval?* and Carterette's multiple-comparison
  analysis. ``paired=False`` treats the systems as independent groups, which is what
  :func:`scipy.stats.tukey_hsd` and statsmodels' ``pairwise_tukeyhsd`` compute.
- The randomised Tukey HSD (Sakai 2018, after Carterette 2012) permutes each query's
  values among the systems and records the range (largest minus smallest system mean) of
  every permuted matrix; a pair's p-value is the add-one share of ranges at least as large
  as its observed absolute difference, ``(1 + #{range >= |diff|}) / (1 + n_resamples)``,
  as in :func:`rankset.stats.paired.paired_randomization_test`. One set of permutations serves
  every metric given together.
- Effect sizes are paired: the mean difference over the standard deviation of the
  per-query differences (Cohen's d for paired data, often written d_z).

Examples
--------
>>> import numpy as np
>>> from rankset.stats.multiple import tukey_hsd
>>> x = np.array([[0.1, 0.5, 0.6], [0.2, 0.7, 0.6], [0.0, 0.4, 0.5], [0.3, 0.8, 0.9]])
>>> difference, p = tukey_hsd(x)
>>> difference[1, 0].round(4), bool(p[1, 0] < 0.05), bool(p[2, 1] < 0.05)
(np.float64(0.45), True, False)
"""

from __future__ import annotations

import os
import warnings
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, TypeAlias

import numpy as np
import numpy.typing as npt

from rankset._dependencies import require_scipy
from rankset._validation import check_fraction, check_int
from rankset.errors import ParameterError
from rankset.stats._draws import RESAMPLES, counted_chunks, resample_chunks, resample_generator

if TYPE_CHECKING:
    from rankset._progress import Progress

__all__ = [
    "AnovaTable",
    "bootstrap_difference_and_effect_cis",
    "bootstrap_effect_size_cis",
    "bootstrap_rank_intervals",
    "paired_effect_sizes",
    "randomized_tukey_hsd",
    "tukey_hsd",
    "two_way_anova",
]

FloatArray: TypeAlias = npt.NDArray[np.float64]
#: ``source -> (df, sum_sq, mean_sq, F, p)``; F and p are NaN for the residual row.
AnovaTable: TypeAlias = dict[str, tuple[float, float, float, float, float]]

# A permuted range this close below an observed difference counts as reaching it: the
# rounding of two different summation orders must not turn a tie into a miss.
_TIE_RTOL = 1e-12


def tukey_hsd(matrix: npt.ArrayLike, *, paired: bool = True) -> tuple[FloatArray, FloatArray]:
    """Tukey's honestly significant difference test over every pair of systems.

    Parameters
    ----------
    matrix
        ``(n_queries, n_systems)`` per-query values, no NaN; two systems or more and two
        queries or more.
    paired
        Take the error variance from the two-way ANOVA without replication (the
        queries are blocks; default), else from a one-way ANOVA (independent groups,
        as :func:`scipy.stats.tukey_hsd`).

    Returns
    -------
    tuple of numpy.ndarray
        ``difference[i, j] = mean_i - mean_j`` and the family-wise ``p[i, j]`` (NaN when
        the error variance is 0), both ``(n_systems, n_systems)``.

    Raises
    ------
    MissingDependencyError
        Without scipy.
    """
    values = _values(matrix)
    require_scipy()
    from scipy.stats import studentized_range

    n, k = values.shape
    means = values.mean(axis=0)
    if paired:
        residual = values - means[None, :] - values.mean(axis=1)[:, None] + values.mean()
        df = (n - 1) * (k - 1)
    else:
        residual = values - means[None, :]
        df = n * k - k
    mean_square = float((residual**2).sum()) / df
    difference = means[:, None] - means[None, :]
    p = np.full((k, k), np.nan)
    if mean_square > 0:
        q = np.abs(difference) / np.sqrt(mean_square / n)
        p = np.asarray(studentized_range.sf(q, k, df), dtype=np.float64)
        np.fill_diagonal(p, 1.0)
    return difference, p


def randomized_tukey_hsd(
    matrices: npt.ArrayLike,
    *,
    n_resamples: int = 10_000,
    seed: int = 0,
    rng: np.random.Generator | None = None,
    progress: Progress | None = None,
) -> FloatArray:
    """Sakai's randomised Tukey HSD: p-values of every pair, family-wise over the systems.

    Parameters
    ----------
    matrices
        ``(n_queries, n_systems)`` per-query values, or ``(n_metrics, n_queries,
        n_systems)`` for several metrics over the same queries, which then share the
        permutations; no NaN.
    n_resamples
        Number of random within-query permutations.
    seed, rng
        The random generator's seed, or a generator to draw from (it is advanced).
    progress
        Called with ``(permutations done, n_resamples, "resamples")`` as they are done.

    Returns
    -------
    numpy.ndarray
        ``p[i, j]`` of shape ``(n_systems, n_systems)``, or ``(n_metrics, n_systems,
        n_systems)`` for a stack of matrices.

    Examples
    --------
    >>> import numpy as np
    >>> x = np.array([[0.0, 1.0], [0.0, 1.0], [0.0, 1.0], [0.0, 1.0], [0.0, 1.0]])
    >>> p = randomized_tukey_hsd(x, n_resamples=3000)
    >>> bool(abs(p[0, 1] - 2 / 32) < 0.02)  # 2 of the 32 swaps reach the observed range
    True
    """
    stack = np.asarray(matrices, dtype=np.float64)
    single = stack.ndim == 2
    if single:
        stack = stack[None]
    if stack.ndim != 3:
        msg = (
            "The 'matrices' parameter must be (n_queries, n_systems) or (n_metrics, "
            f"n_queries, n_systems). Got shape {stack.shape} instead."
        )
        raise ParameterError(msg)
    for metric in stack:
        _values(metric)
    check_int("n_resamples", n_resamples, 1)
    generator = resample_generator(seed, rng)
    m, n, k = stack.shape
    means = stack.mean(axis=1)  # (m, k)
    observed = np.abs(means[:, :, None] - means[:, None, :])  # (m, k, k)
    threshold = observed - _TIE_RTOL * np.abs(stack).sum(axis=(1, 2))[:, None, None] / n
    flat = stack.reshape(m, n * k)
    sizes = resample_chunks(n_resamples, n * k)
    # One generator per chunk, spawned from the seed: the same draws on any number of
    # threads. numpy releases the GIL while it gathers, so two threads nearly halve the time.
    generators = generator.spawn(len(sizes))

    def count(chunk: int) -> npt.NDArray[np.int64]:
        size = sizes[chunk]
        index = np.empty((size, n, k), dtype=np.int64)
        index[...] = np.arange(k, dtype=np.int64)
        generators[chunk].permuted(index, axis=2, out=index)
        index += (np.arange(n, dtype=np.int64) * k)[:, None]  # flat positions in each row
        flat_index = index.reshape(size, n * k)
        reached = np.zeros((m, k, k), dtype=np.int64)
        for metric in range(m):
            sums = np.take(flat[metric], flat_index).reshape(size, n, k).sum(axis=1)
            ranges = (sums.max(axis=1) - sums.min(axis=1)) / n  # (size,)
            reached[metric] = (ranges[:, None, None] >= threshold[metric][None]).sum(axis=0)
        return reached

    workers = min(len(sizes), os.cpu_count() or 1, 4)
    extreme = np.zeros((m, k, k), np.int64)
    done = 0
    with ThreadPoolExecutor(max(workers, 1)) as pool:
        # map's results come back in order, here: the count only grows
        for chunk, reached in enumerate(pool.map(count, range(len(sizes)))):
            extreme += reached
            done += sizes[chunk]
            if progress is not None:
                progress(done, n_resamples, RESAMPLES)
    p = (1.0 + extreme) / (1.0 + n_resamples)
    for metric in range(m):
        np.fill_diagonal(p[metric], 1.0)
    return np.asarray(p[0] if single else p, dtype=np.float64)


def two_way_anova(matrix: npt.ArrayLike) -> AnovaTable:
    """Compute the two-way ANOVA without replication (systems × queries) of one metric.

    Returns
    -------
    dict
        ``{"system": ..., "query": ..., "residual": ...}``, each ``(df, sum_sq, mean_sq,
        F, p)``; F and p are NaN for the residual (and when its mean square is 0).

    Raises
    ------
    MissingDependencyError
        Without scipy.

    Examples
    --------
    >>> import numpy as np
    >>> table = two_way_anova(np.array([[0.0, 1.0], [0.5, 1.0], [0.0, 0.5]]))
    >>> [round(v, 4) for v in table["system"][:4]]
    [1.0, 0.6667, 0.6667, 16.0]
    """
    values = _values(matrix)
    require_scipy()
    from scipy.stats import f as f_distribution

    n, k = values.shape
    grand = values.mean()
    ss_system = n * float(((values.mean(axis=0) - grand) ** 2).sum())
    ss_query = k * float(((values.mean(axis=1) - grand) ** 2).sum())
    ss_total = float(((values - grand) ** 2).sum())
    ss_residual = max(ss_total - ss_system - ss_query, 0.0)
    df_system, df_query = k - 1.0, n - 1.0
    df_residual = df_system * df_query
    ms_residual = ss_residual / df_residual
    table: AnovaTable = {}
    for source, df, ss in (("system", df_system, ss_system), ("query", df_query, ss_query)):
        mean_square = ss / df
        if ms_residual > 0:
            statistic = mean_square / ms_residual
            p = float(f_distribution.sf(statistic, df, df_residual))
        else:
            statistic = p = float("nan")
        table[source] = (df, ss, mean_square, statistic, p)
    table["residual"] = (df_residual, ss_residual, ms_residual, float("nan"), float("nan"))
    return table


def paired_effect_sizes(diffs: npt.ArrayLike) -> FloatArray:
    """Mean over standard deviation (ddof 1) of each column of per-query differences.

    NaN where the differences are constant (a zero standard deviation) or fewer than two.

    Examples
    --------
    >>> import numpy as np
    >>> paired_effect_sizes(np.array([[0.1, 0.0], [0.3, 0.0]])).round(4).tolist()
    [1.4142, nan]
    """
    values = np.asarray(diffs, dtype=np.float64)
    if values.ndim == 1:
        values = values[:, None]
    if values.shape[0] < 2:
        return np.full(values.shape[1], np.nan)
    deviation = values.std(axis=0, ddof=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        effect = np.where(deviation > 0, values.mean(axis=0) / deviation, np.nan)
    return np.asarray(effect, dtype=np.float64)


def bootstrap_effect_size_cis(
    diffs: npt.ArrayLike,
    *,
    confidence: float = 0.95,
    n_resamples: int = 1_000,
    seed: int = 0,
    rng: np.random.Generator | None = None,
) -> FloatArray:
    """Percentile bootstrap intervals of :func:`paired_effect_sizes`, queries resampled.

    Every column shares the resampled queries. Returns ``(n_columns, 2)``: low, high (NaN
    for a column whose differences are constant).
    """
    return bootstrap_difference_and_effect_cis(
        diffs, confidence=confidence, n_resamples=n_resamples, seed=seed, rng=rng
    )[1]


def bootstrap_difference_and_effect_cis(
    diffs: npt.ArrayLike,
    *,
    confidence: float = 0.95,
    n_resamples: int = 1_000,
    seed: int = 0,
    rng: np.random.Generator | None = None,
    progress: Progress | None = None,
) -> tuple[FloatArray, FloatArray]:
    """Bootstrap intervals of each column's mean difference and its effect size, at once.

    One set of resampled queries serves both: the resampled means are those of
    :func:`rankset.stats.paired.paired_bootstrap_cis` for the same seed, and the effect sizes
    reuse them. Returns two ``(n_columns, 2)`` arrays; a constant column has the exact
    interval of its mean and a NaN effect-size interval. ``progress`` is called with
    ``(resamples done, n_resamples, "resamples")`` as they are done.
    """
    values = _values(diffs, minimum=1)
    check_fraction("confidence", confidence)
    check_int("n_resamples", n_resamples, 1)
    generator = resample_generator(seed, rng)
    n, c = values.shape
    means = np.empty((n_resamples, c))
    effects = np.empty((n_resamples, c))
    start = 0
    for size in counted_chunks(n_resamples, n, progress):
        counts = _counts(generator, size, n)
        mean = counts @ values / n
        square = counts @ (values**2) / n
        variance = np.maximum(square - mean**2, 0.0) * n / max(n - 1, 1)
        means[start : start + size] = mean
        with np.errstate(divide="ignore", invalid="ignore"):
            effects[start : start + size] = mean / np.sqrt(variance)
        start += size
    tail = (1.0 - confidence) / 2.0
    effects[~np.isfinite(effects)] = np.nan
    constant = np.all(values == values[0], axis=0)
    mean_bounds = np.quantile(means, [tail, 1.0 - tail], axis=0).T
    mean_bounds[constant] = values[0, constant][:, None]
    effect_bounds = np.full((c, 2), np.nan)
    with np.errstate(invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a column with no finite resample
        effect_bounds[~constant] = np.nanquantile(
            effects[:, ~constant], [tail, 1.0 - tail], axis=0
        ).T
    return np.asarray(mean_bounds, dtype=np.float64), effect_bounds


def bootstrap_rank_intervals(
    matrix: npt.ArrayLike,
    *,
    greater_is_better: bool = True,
    confidence: float = 0.95,
    n_resamples: int = 1_000,
    seed: int = 0,
    rng: np.random.Generator | None = None,
    progress: Progress | None = None,
) -> tuple[FloatArray, FloatArray]:
    """Each system's rank in the observed means and its bootstrap interval over queries.

    Ranks are competition ranks (1 = best; equal means share the better rank).
    ``progress`` is called with ``(resamples done, n_resamples, "resamples")`` as they
    are done.

    Returns
    -------
    tuple of numpy.ndarray
        ``ranks`` (n_systems,) and ``intervals`` (n_systems, 2): the percentile interval
        of the rank over the resamples.

    Examples
    --------
    >>> import numpy as np
    >>> x = np.array([[0.9, 0.1, 0.5], [0.8, 0.2, 0.6], [0.9, 0.0, 0.4]])
    >>> ranks, intervals = bootstrap_rank_intervals(x, n_resamples=200)
    >>> ranks.tolist(), intervals.tolist()
    ([1.0, 3.0, 2.0], [[1.0, 1.0], [3.0, 3.0], [2.0, 2.0]])
    """
    values = _values(matrix, minimum=1)
    check_fraction("confidence", confidence)
    check_int("n_resamples", n_resamples, 1)
    generator = resample_generator(seed, rng)
    n, k = values.shape
    sign = 1.0 if greater_is_better else -1.0
    ranks = _ranks(sign * values.mean(axis=0)[None])[0]
    resampled = np.empty((n_resamples, k))
    start = 0
    for size in counted_chunks(n_resamples, n, progress):
        counts = _counts(generator, size, n)
        resampled[start : start + size] = _ranks(sign * (counts @ values) / n)
        start += size
    tail = (1.0 - confidence) / 2.0
    low = np.quantile(resampled, tail, axis=0, method="lower")
    high = np.quantile(resampled, 1.0 - tail, axis=0, method="higher")
    return ranks, np.column_stack([low, high]).astype(np.float64)


# --- helpers -----------------------------------------------------------------------------


def _values(matrix: npt.ArrayLike, *, minimum: int = 2) -> FloatArray:
    values = np.asarray(matrix, dtype=np.float64)
    if values.ndim != 2:
        msg = (
            "Expected a matrix (n_queries, n_systems) of per-query values. "
            f"Got shape {values.shape} instead."
        )
        raise ParameterError(msg)
    if values.shape[0] < minimum or values.shape[1] < 1:
        msg = f"Expected {minimum} queries or more. Got a matrix of shape {values.shape}."
        raise ParameterError(msg)
    if not np.all(np.isfinite(values)):
        msg = "Expected finite per-query values only (queries NA for a system are dropped first)."
        raise ParameterError(msg)
    return values


def _counts(generator: np.random.Generator, size: int, n: int) -> FloatArray:
    """How often each query is drawn in each of ``size`` resamples: ``(size, n)``.

    The draws :func:`rankset.stats.paired.bootstrap_column_mean_cis` makes for the same generator.
    """
    index = generator.integers(0, n, size=(size, n))
    index += (np.arange(size, dtype=np.int64) * n)[:, None]
    counts = np.bincount(index.ravel(), minlength=size * n).reshape(size, n)
    return counts.astype(np.float64)


def _ranks(scores: FloatArray) -> FloatArray:
    """Competition ranks of each row (higher score = better = rank 1)."""
    better = scores[:, None, :] > scores[:, :, None]  # [r, j, i]: i beats j
    return np.asarray(1.0 + better.sum(axis=2), dtype=np.float64)
