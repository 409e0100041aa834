"""Paired significance tests, bootstrap confidence intervals and p-value corrections.

Pure functions over numpy arrays; :func:`rankset.compare` builds its tidy frame on them.
numpy is imported here (``import rankset`` does not import this module); scipy is an
optional extra (``pip install "rankset[stats]"``), imported only by :func:`paired_t_test`
and :func:`wilcoxon_test`.

Conventions, stated once:

- One-dimensional inputs may hold NaN for NA: an NA value (or a pair with an NA side) is
  dropped before testing, like :func:`rankset.compare` drops queries NA on either side.
  The matrix functions (one column per comparison) take complete columns only.
- Resampling is vectorised: signs and bootstrap draws are generated as matrices, in chunks
  of about 64 MB per working array, so memory stays bounded for any number of resamples.
  A ``seed`` (or a ``numpy.random.Generator`` passed as ``rng``) makes results
  reproducible; for a given seed the draws depend only on the number of queries, so
  testing one comparison alone or many together gives the same p-value.
- The randomization test is two-sided, on the mean difference, with the add-one
  estimator ``p = (1 + #{|mean(s·d)| >= |mean(d)|}) / (1 + n_resamples)``, which is never
  0 and is a valid p-value for any number of resamples.

Examples
--------
>>> from rankset.stats.paired import adjust_pvalues, paired_randomization_test
>>> diffs = [0.10, 0.20, 0.05, 0.30, 0.15, 0.25, 0.10, 0.20]
>>> paired_randomization_test(diffs, n_resamples=2000, seed=0) < 0.05
True
>>> adjust_pvalues([0.01, 0.04, 0.03], "holm").round(4).tolist()
[0.03, 0.06, 0.06]
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any, TypeAlias

import numpy as np
import numpy.typing as npt

from rankset._dependencies import import_optional
from rankset._typing import Correction, choices_of
from rankset._validation import check_fraction, check_int
from rankset.errors import ParameterError
from rankset.stats._draws import counted_chunks, resample_generator, reusable_draws

if TYPE_CHECKING:
    from rankset._progress import Progress

__all__ = [
    "CORRECTIONS",
    "Correction",
    "adjust_pvalues",
    "bootstrap_column_mean_cis",
    "bootstrap_mean_ci",
    "paired_bootstrap_ci",
    "paired_bootstrap_cis",
    "paired_randomization_test",
    "paired_randomization_tests",
    "paired_t_test",
    "wilcoxon_test",
]

#: Multiple-testing corrections: Holm step-down, Bonferroni, Benjamini-Hochberg step-up.
CORRECTIONS: tuple[Correction, ...] = choices_of(Correction)  # type: ignore[assignment]

ArrayLike: TypeAlias = npt.ArrayLike
FloatArray: TypeAlias = npt.NDArray[np.float64]

# A resampled |sum| within this fraction of sum(|d|) below the observed |sum| counts as
# "at least as extreme": it absorbs rounding differences between the matrix product and
# the direct sum, so exact ties (common with discrete metrics) are counted as ties.
_TIE_RTOL = 1e-9


# --- randomization (sign-flip) test ------------------------------------------------------


def paired_randomization_test(
    diffs: ArrayLike,
    *,
    n_resamples: int = 10_000,
    seed: int = 0,
    rng: np.random.Generator | None = None,
) -> float:
    """Two-sided paired randomization (sign-flip) test of a mean difference.

    Under the null hypothesis the two systems are exchangeable on every query, so each
    per-query difference is equally likely to have either sign. The p-value is the share
    of random sign assignments whose mean is at least as far from 0 as the observed one:
    ``(1 + #{|mean(s·d)| >= |mean(d)|}) / (1 + n_resamples)``.

    Parameters
    ----------
    diffs
        Per-query differences (system - baseline); NaN entries are NA and dropped.
    n_resamples
        Number of random sign assignments.
    seed
        Seed of the random generator (ignored when ``rng`` is given).
    rng
        A numpy generator to draw from instead of ``seed``; it is advanced.

    Returns
    -------
    float
        The p-value in ``(0, 1]``; 1.0 when every difference is 0; NaN without any
        difference.

    Examples
    --------
    >>> paired_randomization_test([0.0, 0.0, 0.0])
    1.0
    >>> p = paired_randomization_test([0.5, 0.4, 0.6, 0.5, 0.7, 0.3], n_resamples=1000)
    >>> round(p, 2)  # the exact p-value is 2 / 2**6 = 0.03125
    0.03
    """
    values = _drop_nan(_vector(diffs, "diffs"))
    return float(
        paired_randomization_tests(values[:, None], n_resamples=n_resamples, seed=seed, rng=rng)[0]
    )


def paired_randomization_tests(
    diffs: ArrayLike,
    *,
    n_resamples: int = 10_000,
    seed: int = 0,
    rng: np.random.Generator | None = None,
    progress: Progress | None = None,
) -> FloatArray:
    """Run :func:`paired_randomization_test` on many comparisons with one sign matrix.

    Comparisons over the same number of queries share the random sign assignments: the
    resampled sums of every comparison come from one matrix product
    ``signs @ diffs``. Each p-value is the one :func:`paired_randomization_test` gives
    for that column alone with the same seed.

    Parameters
    ----------
    diffs
        Matrix of shape ``(n_queries, n_comparisons)``: column ``j`` holds the per-query
        differences of comparison ``j``. No NaN.
    n_resamples, seed, rng
        As for :func:`paired_randomization_test`.
    progress
        Called with ``(resamples done, n_resamples, "resamples")`` as they are done.

    Returns
    -------
    numpy.ndarray
        One p-value per column (NaN for every column when there are no queries).

    Examples
    --------
    >>> import numpy as np
    >>> d = np.array([[0.5, 0.0], [0.4, 0.0], [0.6, 0.0], [0.5, 0.0]])
    >>> paired_randomization_tests(d, n_resamples=1000).round(1).tolist()  # exact: 2/16, 1
    [0.1, 1.0]
    """
    matrix = _matrix(diffs, "diffs")
    check_int("n_resamples", n_resamples, 1)
    n, m = matrix.shape
    if n == 0:
        return np.full(m, np.nan)
    generator = resample_generator(seed, rng)
    total = matrix.sum(axis=0)
    threshold = np.abs(total) - _TIE_RTOL * np.abs(matrix).sum(axis=0)
    extreme = np.zeros(m, dtype=np.int64)
    for rows in counted_chunks(n_resamples, n, progress):
        # Bits b in {0, 1} give signs s = 2b - 1, so sum(s·d) = 2·(b @ d) - sum(d).
        raw = np.frombuffer(generator.bytes(-(-rows * n // 8)), dtype=np.uint8)
        bits = np.unpackbits(raw, count=rows * n).reshape(rows, n)
        sums = 2.0 * (bits.astype(np.float64) @ matrix) - total
        extreme += np.count_nonzero(np.abs(sums) >= threshold, axis=0)
    return np.asarray((1.0 + extreme) / (1.0 + n_resamples), dtype=np.float64)


# --- bootstrap confidence intervals ----------------------------------------------------


def paired_bootstrap_ci(
    diffs: ArrayLike,
    *,
    confidence: float = 0.95,
    n_resamples: int = 10_000,
    seed: int = 0,
    rng: np.random.Generator | None = None,
) -> tuple[float, float]:
    """Percentile bootstrap confidence interval of a mean paired difference.

    Queries are resampled with replacement (their differences travel together, which
    keeps the pairing); the interval is the ``(1 - confidence) / 2`` and
    ``(1 + confidence) / 2`` quantiles (numpy's linear interpolation) of the resampled
    means.

    Parameters
    ----------
    diffs
        Per-query differences (system - baseline); NaN entries are NA and dropped.
    confidence
        Coverage of the interval, in ``(0, 1)``.
    n_resamples
        Number of bootstrap resamples.
    seed
        Seed of the random generator (ignored when ``rng`` is given).
    rng
        A numpy generator to draw from instead of ``seed``; it is advanced.

    Returns
    -------
    tuple of float
        ``(low, high)``; ``(c, c)`` when every difference equals ``c``; NaN without data.

    Examples
    --------
    >>> paired_bootstrap_ci([0.25, 0.25, 0.25])
    (0.25, 0.25)
    >>> low, high = paired_bootstrap_ci([0.1, 0.3, 0.2, 0.4, 0.0], n_resamples=2000)
    >>> bool(0.0 < low < 0.2 < high < 0.4)
    True
    """
    values = _drop_nan(_vector(diffs, "diffs"))
    low, high = paired_bootstrap_cis(
        values[:, None], confidence=confidence, n_resamples=n_resamples, seed=seed, rng=rng
    )[0]
    return float(low), float(high)


def bootstrap_mean_ci(
    values: ArrayLike,
    *,
    confidence: float = 0.95,
    n_resamples: int = 1_000,
    seed: int = 0,
    rng: np.random.Generator | None = None,
) -> tuple[float, float]:
    """Percentile bootstrap confidence interval of one system's mean.

    The same resampling as :func:`paired_bootstrap_ci`, on one vector of per-query
    values (7,000 values and 1,000 resamples take a few tens of milliseconds).

    Parameters
    ----------
    values
        Per-query values; NaN entries are NA and dropped (means skip NA).
    confidence, n_resamples, seed, rng
        As for :func:`paired_bootstrap_ci`.

    Returns
    -------
    tuple of float
        ``(low, high)``; NaN when no value is present.

    Examples
    --------
    >>> low, high = bootstrap_mean_ci([0.0, 1.0, 1.0, 0.0, 1.0, float("nan")])
    >>> bool(0.0 <= low < 0.6 < high <= 1.0)
    True
    """
    return paired_bootstrap_ci(
        values, confidence=confidence, n_resamples=n_resamples, seed=seed, rng=rng
    )


def paired_bootstrap_cis(
    diffs: ArrayLike,
    *,
    confidence: float = 0.95,
    n_resamples: int = 10_000,
    seed: int = 0,
    rng: np.random.Generator | None = None,
    progress: Progress | None = None,
) -> FloatArray:
    """Bootstrap confidence intervals of many mean differences with shared resamples.

    Comparisons over the same number of queries share the resampled query indices; each
    column's interval is the one :func:`paired_bootstrap_ci` gives for it alone with the
    same seed (up to floating-point rounding of the sums).

    Parameters
    ----------
    diffs
        Matrix of shape ``(n_queries, n_comparisons)``; no NaN.
    confidence, n_resamples, seed, rng
        As for :func:`paired_bootstrap_ci` (``confidence``: of every interval).
    progress
        Called with ``(resamples done, n_resamples, "resamples")`` as they are done.

    Returns
    -------
    numpy.ndarray
        Shape ``(n_comparisons, 2)``: ``low, high`` per column.

    Examples
    --------
    >>> import numpy as np
    >>> paired_bootstrap_cis(np.array([[1.0, 0.5], [1.0, 0.5]])).tolist()
    [[1.0, 1.0], [0.5, 0.5]]
    """
    matrix = _matrix(diffs, "diffs")
    return bootstrap_column_mean_cis(
        matrix,
        confidence=confidence,
        n_resamples=n_resamples,
        seed=seed,
        rng=rng,
        progress=progress,
    )


def bootstrap_column_mean_cis(
    values: ArrayLike,
    *,
    confidence: float = 0.95,
    n_resamples: int = 1_000,
    seed: int = 0,
    rng: np.random.Generator | None = None,
    progress: Progress | None = None,
) -> FloatArray:
    """Percentile bootstrap CIs of the column means of a (queries × columns) matrix.

    The one resampling core of rankset: queries are resampled with replacement and every
    column shares the draws (paired differences of many comparisons; or a system's metrics
    in a summary, or its cutoffs in a curve). NaN is NA: a column's mean skips its NaNs,
    and a column without any value gets NaN bounds. ``progress`` is called with
    ``(resamples done, n_resamples, "resamples")`` as they are done.

    Returns
    -------
    numpy.ndarray
        Shape ``(n_columns, 2)``: ``low, high`` per column.

    Examples
    --------
    >>> import numpy as np
    >>> bootstrap_column_mean_cis(np.array([[1.0, 2.0], [1.0, np.nan]])).tolist()
    [[1.0, 1.0], [2.0, 2.0]]
    """
    matrix = np.asarray(values, dtype=np.float64)
    if matrix.ndim == 1:
        matrix = matrix[:, None]
    check_fraction("confidence", confidence)
    check_int("n_resamples", n_resamples, 1)
    n, m = matrix.shape
    present = ~np.isnan(matrix)
    has_value = present.any(axis=0)
    bounds = np.full((m, 2), np.nan)
    if n == 0 or not has_value.any():
        return bounds
    if n == 1:  # every resample is the one query: each column's interval is its value
        bounds[has_value] = matrix[0, has_value, None]
        return bounds
    complete = bool(present.all())
    # Without NA the values are their own zero-filled copy and every resample's count is
    # the row sum of its multiplicities (exact in floats): no copies of the matrix.
    filled = matrix if complete else np.where(present, matrix, 0.0)
    weights = None if complete else present.astype(np.float64)
    # inside reused_draws(), the draws of an earlier call with the same seed and sizes
    stored = reusable_draws(seed, n, n_resamples) if rng is None else None
    if stored is not None and not stored["complete"]:
        stored["index"].clear()
        stored["counts"].clear()
    reuse = stored is not None and stored["complete"]
    generator = None if reuse else resample_generator(seed, rng)
    means = np.empty((n_resamples, m))
    start = 0
    for number, rows in enumerate(counted_chunks(n_resamples, n, progress)):
        if reuse:
            index = stored["index"][number]  # type: ignore[index]
        else:
            index = generator.integers(0, n, size=(rows, n))  # type: ignore[union-attr]
            if stored is not None:
                stored["index"].append(index)
        if m == 1 and complete:
            means[start : start + rows, 0] = matrix[index, 0].mean(axis=1)
        else:
            # Multiplicity of each query in each resample, then one matrix product for
            # every column at once; dividing by the drawn non-NA count skips NA.
            counts = None if stored is None else stored["counts"].get(number)
            if counts is None:
                offsets = index + (np.arange(rows, dtype=np.int64) * n)[:, None]
                counts = np.bincount(offsets.ravel(), minlength=rows * n).reshape(rows, n)
                counts = counts.astype(np.float64)
                if stored is not None:
                    stored["counts"][number] = counts
            drawn = counts.sum(axis=1, keepdims=True) if weights is None else counts @ weights
            with np.errstate(invalid="ignore", divide="ignore"):
                means[start : start + rows] = (counts @ filled) / drawn
        start += rows
    if stored is not None:
        stored["complete"] = True
    tail = (1.0 - confidence) / 2.0
    # A resample that drew none of a column's values gives NaN, which the quantiles skip.
    # Infinite values (an overflowing metric) give infinite or NaN bounds, not a warning.
    kept = means[:, has_value]
    # np.quantile is nanquantile's own kernel, vectorised over the columns, where no
    # resample missed a column (nanquantile loops over them in Python).
    quantile = np.quantile if not np.isnan(kept).any() else np.nanquantile
    with np.errstate(invalid="ignore", over="ignore"):
        bounds[has_value] = quantile(kept, [tail, 1.0 - tail], axis=0).T
    # A constant column has a degenerate interval; say so exactly rather than up to the
    # rounding of its resampled means.
    for column in np.flatnonzero(has_value):
        observed = matrix[present[:, column], column]
        if np.all(observed == observed[0]):
            bounds[column] = observed[0]
    return np.asarray(bounds, dtype=np.float64)


# --- classical tests (scipy) -----------------------------------------------------------


def paired_t_test(a: ArrayLike, b: ArrayLike) -> float:
    """Two-sided paired t-test p-value, as :func:`scipy.stats.ttest_rel` computes it.

    Parameters
    ----------
    a, b
        Per-query values of the two systems, aligned by position. Pairs with a NaN on
        either side are NA and dropped.

    Returns
    -------
    float
        The p-value; NaN where scipy gives NaN (fewer than 2 pairs, or every difference
        0, where the t statistic is 0/0).

    Raises
    ------
    MissingDependencyError
        When scipy is not installed.

    Examples
    --------
    >>> round(paired_t_test([0.5, 0.7, 0.9, 0.6], [0.4, 0.5, 0.6, 0.6]), 4)
    0.1027
    """
    left, right = _pairs(a, b)
    scipy_stats = _scipy_stats()
    if left.size < 2:
        return float("nan")
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return float(scipy_stats.ttest_rel(left, right).pvalue)


def wilcoxon_test(a: ArrayLike, b: ArrayLike) -> float:
    """Wilcoxon signed-rank test p-value, as :func:`scipy.stats.wilcoxon` computes it.

    scipy's default settings: two-sided, zero differences dropped (``zero_method=
    "wilcox"``), no continuity correction, exact or normal approximation chosen by
    scipy (``method="auto"``).

    Parameters
    ----------
    a, b
        Per-query values of the two systems, aligned by position. Pairs with a NaN on
        either side are NA and dropped.

    Returns
    -------
    float
        The p-value; 1.0 when every difference is 0 (no evidence of a difference, where
        scipy versions differ between an error, NaN and 1.0); NaN without any pair.

    Raises
    ------
    MissingDependencyError
        When scipy is not installed.

    Examples
    --------
    >>> wilcoxon_test([0.5, 0.7, 0.9, 0.6, 0.8], [0.4, 0.5, 0.6, 0.5, 0.7])
    0.0625
    >>> wilcoxon_test([0.5, 0.7], [0.5, 0.7])
    1.0
    """
    left, right = _pairs(a, b)
    scipy_stats = _scipy_stats()
    if left.size == 0:
        return float("nan")
    if np.all(left == right):
        return 1.0
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return float(scipy_stats.wilcoxon(left, right).pvalue)


def _scipy_stats() -> Any:
    return import_optional("scipy.stats", extra="stats", purpose="A paired t or Wilcoxon test")


# --- multiple testing ------------------------------------------------------------------


def adjust_pvalues(p: ArrayLike, method: Correction | None) -> FloatArray:
    """Adjust p-values for multiple testing.

    The family is every non-NaN entry of ``p``: NaN p-values (tests that could not be
    run) stay NaN and do not count in the family size ``m``.

    - ``"bonferroni"``: ``min(1, m·p)``.
    - ``"holm"``: step-down; with the sorted p-values ``p(1) <= ... <= p(m)``,
      ``p_adj(i) = max over j <= i of min(1, (m - j + 1)·p(j))``.
    - ``"bh"`` (Benjamini-Hochberg, false discovery rate): step-up;
      ``p_adj(i) = min over j >= i of min(1, m·p(j) / j)``.
    - ``None``: a copy of ``p``.

    Parameters
    ----------
    p
        P-values in ``[0, 1]`` (NaN allowed).
    method
        ``"holm"``, ``"bonferroni"``, ``"bh"`` or ``None``.

    Returns
    -------
    numpy.ndarray
        Adjusted p-values, in the order of ``p``.

    Examples
    --------
    >>> adjust_pvalues([0.01, 0.04, float("nan"), 0.03], "bh").round(4).tolist()
    [0.03, 0.04, nan, 0.04]
    >>> adjust_pvalues([0.01, 0.04, 0.03], "bonferroni").round(4).tolist()
    [0.03, 0.12, 0.09]
    """
    values = _vector(p, "p").copy()
    if method is not None and method not in CORRECTIONS:
        allowed = ", ".join(repr(c) for c in (*CORRECTIONS, None))
        msg = f"The 'correction' parameter must be one of {allowed}. Got {method!r} instead."
        raise ParameterError(msg)
    present = ~np.isnan(values)
    tested = values[present]
    if np.any((tested < 0) | (tested > 1)):
        msg = f"The 'p' parameter must hold p-values in [0, 1]. Got {tested.tolist()} instead."
        raise ParameterError(msg)
    m = tested.size
    if method is None or m == 0:
        return values
    if method == "bonferroni":
        values[present] = np.minimum(1.0, m * tested)
        return values
    order = np.argsort(tested, kind="stable")
    ranked = tested[order]
    rank = np.arange(1, m + 1)
    if method == "holm":
        adjusted = np.maximum.accumulate((m - rank + 1) * ranked)
    else:
        adjusted = np.minimum.accumulate((m * ranked / rank)[::-1])[::-1]
    result = np.empty(m)
    result[order] = np.minimum(1.0, adjusted)
    values[present] = result
    return values


# --- helpers -----------------------------------------------------------------------------


def _vector(values: ArrayLike, name: str) -> FloatArray:
    try:
        array = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        msg = f"The '{name}' parameter must be a sequence of numbers. Got {values!r} instead."
        raise ParameterError(msg) from None
    if array.ndim != 1:
        msg = f"The '{name}' parameter must be one-dimensional. Got shape {array.shape} instead."
        raise ParameterError(msg)
    return array


def _matrix(values: ArrayLike, name: str) -> FloatArray:
    array = np.asarray(values, dtype=np.float64)
    if array.ndim != 2:
        msg = (
            f"The '{name}' parameter must be a matrix (n_queries, n_comparisons). "
            f"Got shape {array.shape} instead."
        )
        raise ParameterError(msg)
    if not np.all(np.isfinite(array)):
        msg = f"The '{name}' parameter must hold finite numbers only (drop NA queries first)."
        raise ParameterError(msg)
    return array


def _drop_nan(values: FloatArray) -> FloatArray:
    return values[~np.isnan(values)]


def _pairs(a: ArrayLike, b: ArrayLike) -> tuple[FloatArray, FloatArray]:
    left, right = _vector(a, "a"), _vector(b, "b")
    if left.shape != right.shape:
        msg = (
            "The 'a' and 'b' parameters must have the same length (one value per query). "
            f"Got {left.size} and {right.size} instead."
        )
        raise ParameterError(msg)
    keep = ~(np.isnan(left) | np.isnan(right))
    return left[keep], right[keep]
