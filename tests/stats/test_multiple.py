"""rankset.stats.multiple: Tukey's HSD and its randomised form, ANOVA, effect sizes, ranks.

References: SciPy's ``tukey_hsd`` and statsmodels' ``pairwise_tukeyhsd`` (independent
groups), statsmodels' ``anova_lm`` of the additive two-way model (the ANOVA table, and the
error variance of the paired Tukey HSD), and an exact enumeration of every within-query
permutation on a small case (the randomised test, within Monte Carlo error).
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from rankset.errors import ParameterError
from rankset.stats.multiple import (
    bootstrap_effect_size_cis,
    bootstrap_rank_intervals,
    paired_effect_sizes,
    randomized_tukey_hsd,
    tukey_hsd,
    two_way_anova,
)

scipy_stats = pytest.importorskip("scipy.stats")
smf = pytest.importorskip("statsmodels.formula.api")
sm_anova = pytest.importorskip("statsmodels.stats.anova")
sm_multicomp = pytest.importorskip("statsmodels.stats.multicomp")


def _matrix(seed: int, n: int = 30, k: int = 5) -> np.ndarray:
    """Per-query values with query difficulty and system effects, in [0, 1]."""
    rng = np.random.default_rng(seed)
    difficulty = rng.random(n)[:, None]
    effect = np.linspace(0.0, 0.15, k)[None, :]
    return np.clip(0.6 * difficulty + effect + rng.normal(0, 0.1, (n, k)), 0.0, 1.0)


def _long(matrix: np.ndarray) -> pd.DataFrame:
    n, k = matrix.shape
    return pd.DataFrame(
        {
            "value": matrix.ravel(),
            "query": np.repeat([f"q{i}" for i in range(n)], k),
            "system": np.tile([f"s{j}" for j in range(k)], n),
        }
    )


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_unpaired_tukey_equals_scipy_and_statsmodels(seed: int) -> None:
    matrix = _matrix(seed)
    difference, p = tukey_hsd(matrix, paired=False)
    reference = scipy_stats.tukey_hsd(*matrix.T)
    np.testing.assert_allclose(p, reference.pvalue, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(difference, reference.statistic, atol=1e-12)
    frame = _long(matrix)
    result = sm_multicomp.pairwise_tukeyhsd(frame["value"], frame["system"])
    k = matrix.shape[1]
    pairs = list(itertools.combinations(range(k), 2))  # statsmodels' order: s0-s1, s0-s2...
    np.testing.assert_allclose([p[i, j] for i, j in pairs], result.pvalues, rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("seed", [0, 3])
def test_paired_tukey_uses_the_two_way_residual_variance(seed: int) -> None:
    matrix = _matrix(seed)
    n, k = matrix.shape
    fit = smf.ols("value ~ C(system) + C(query)", data=_long(matrix)).fit()
    mse, df = fit.mse_resid, fit.df_resid
    means = matrix.mean(axis=0)
    expected = scipy_stats.studentized_range.sf(
        np.abs(means[:, None] - means[None, :]) / np.sqrt(mse / n), k, df
    )
    np.fill_diagonal(expected, 1.0)
    _, p = tukey_hsd(matrix)
    np.testing.assert_allclose(p, expected, rtol=1e-9, atol=1e-12)
    # blocking on queries removes their difficulty: paired p-values are smaller here
    _, unpaired = tukey_hsd(matrix, paired=False)
    assert p[0, k - 1] < unpaired[0, k - 1]


@pytest.mark.parametrize("seed", [0, 4])
def test_two_way_anova_equals_statsmodels(seed: int) -> None:
    matrix = _matrix(seed, n=12, k=4)
    fit = smf.ols("value ~ C(system) + C(query)", data=_long(matrix)).fit()
    reference = sm_anova.anova_lm(fit, typ=2)
    table = two_way_anova(matrix)
    for source, row in (("system", "C(system)"), ("query", "C(query)"), ("residual", "Residual")):
        df, sum_sq, mean_sq, statistic, p = table[source]
        expected = reference.loc[row]
        assert df == expected["df"]
        assert sum_sq == pytest.approx(expected["sum_sq"], rel=1e-9)
        assert mean_sq == pytest.approx(expected["sum_sq"] / expected["df"], rel=1e-9)
        if source != "residual":
            assert statistic == pytest.approx(expected["F"], rel=1e-9)
            assert p == pytest.approx(expected["PR(>F)"], rel=1e-6, abs=1e-15)


def _exact_randomized_tukey(matrix: np.ndarray) -> np.ndarray:
    """Every combination of within-query permutations, enumerated."""
    n, k = matrix.shape
    means = matrix.mean(axis=0)
    observed = np.abs(means[:, None] - means[None, :])
    permutations = list(itertools.permutations(range(k)))
    reached = np.zeros((k, k))
    total = 0
    for choice in itertools.product(permutations, repeat=n):
        permuted = np.array([matrix[q, list(order)] for q, order in enumerate(choice)])
        column_means = permuted.mean(axis=0)
        reached += (column_means.max() - column_means.min()) >= observed - 1e-12
        total += 1
    return reached / total


def test_randomized_tukey_is_within_monte_carlo_error_of_the_exact_test() -> None:
    matrix = np.array(
        [[0.1, 0.5, 0.4], [0.3, 0.6, 0.2], [0.0, 0.9, 0.5], [0.2, 0.7, 0.6]]
    )  # 6^4 = 1,296 combinations
    exact = _exact_randomized_tukey(matrix)
    resamples = 20_000
    p = randomized_tukey_hsd(matrix, n_resamples=resamples, seed=7)
    error = 4 * np.sqrt(exact * (1 - exact) / resamples) + 2 / resamples
    assert np.all(np.abs(p - exact) <= error), (p, exact)
    assert 0.0 < exact[0, 1] < 0.2  # a case that is neither trivial nor hopeless


def test_metrics_given_together_share_the_permutations() -> None:
    first, second = _matrix(5, n=40, k=4), _matrix(6, n=40, k=4)
    together = randomized_tukey_hsd(np.stack([first, second]), n_resamples=500, seed=3)
    np.testing.assert_array_equal(together[0], randomized_tukey_hsd(first, n_resamples=500, seed=3))
    np.testing.assert_array_equal(
        together[1], randomized_tukey_hsd(second, n_resamples=500, seed=3)
    )
    assert np.all(np.diag(together[0]) == 1.0)
    np.testing.assert_array_equal(together[0], together[0].T)


def test_effect_sizes_and_their_intervals() -> None:
    rng = np.random.default_rng(0)
    diffs = rng.normal([0.5, 0.0, 0.2], 1.0, size=(400, 3))
    diffs[:, 1] = 0.25  # constant: no effect size
    effect = paired_effect_sizes(diffs)
    varying = diffs[:, [0, 2]]
    expected = varying.mean(axis=0) / varying.std(axis=0, ddof=1)
    np.testing.assert_allclose(effect[[0, 2]], expected, rtol=1e-12)
    assert np.isnan(effect[1])
    bounds = bootstrap_effect_size_cis(diffs, n_resamples=2000, seed=1)
    assert np.all(np.isnan(bounds[1]))
    for column in (0, 2):
        d = effect[column]
        half = 1.96 * np.sqrt((1 + d**2 / 2) / 400)  # the large-sample standard error
        assert bounds[column, 0] == pytest.approx(d - half, abs=0.03)
        assert bounds[column, 1] == pytest.approx(d + half, abs=0.03)


def test_rank_intervals() -> None:
    matrix = np.array([[0.9, 0.1, 0.5, 0.5], [0.8, 0.2, 0.6, 0.6], [0.9, 0.0, 0.4, 0.4]])
    ranks, intervals = bootstrap_rank_intervals(matrix, n_resamples=300)
    assert ranks.tolist() == [1.0, 4.0, 2.0, 2.0]  # equal means share the better rank
    assert intervals.tolist() == [[1.0, 1.0], [4.0, 4.0], [2.0, 2.0], [2.0, 2.0]]
    lower, _ = bootstrap_rank_intervals(matrix, greater_is_better=False, n_resamples=50)
    assert lower.tolist() == [4.0, 1.0, 2.0, 2.0]
    noisy = _matrix(8, n=20, k=6)
    ranks, intervals = bootstrap_rank_intervals(noisy, n_resamples=500, seed=2)
    assert np.all((intervals[:, 0] <= ranks) & (ranks <= intervals[:, 1]))


def test_bad_matrices_are_refused() -> None:
    with pytest.raises(ParameterError, match="finite"):
        tukey_hsd(np.array([[0.1, np.nan], [0.2, 0.3]]))
    with pytest.raises(ParameterError, match="2 queries or more"):
        tukey_hsd(np.array([[0.1, 0.2]]))
    with pytest.raises(ParameterError, match="n_metrics"):
        randomized_tukey_hsd(np.zeros((2, 2, 2, 2)))
