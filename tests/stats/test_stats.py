"""rankset.stats.paired against scipy, exact enumeration and hand computation."""

from __future__ import annotations

import itertools
import math
import sys
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as scipy_stats

from rankset.errors import MissingDependencyError, ParameterError
from rankset.stats import _draws as draws
from rankset.stats.paired import (
    adjust_pvalues,
    bootstrap_mean_ci,
    paired_bootstrap_ci,
    paired_bootstrap_cis,
    paired_randomization_test,
    paired_randomization_tests,
    paired_t_test,
    wilcoxon_test,
)

# --- helpers: references computed without rankset ---------------------------------------


def _scipy_quiet(function, *args):  # type: ignore[no-untyped-def]
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return float(function(*args).pvalue)


def _exact_randomization_p(diffs: np.ndarray) -> float:
    """Share of all 2**n sign vectors whose |sum| reaches the observed |sum| (full enumeration).

    The test vectors are integers or generic floats: integer sums are exact in floating
    point, so ">=" counts exact ties; for generic floats a 1e-12 slack absorbs rounding.
    """
    signs = np.array(list(itertools.product((-1.0, 1.0), repeat=diffs.size)))
    sums = np.abs(signs @ diffs)
    return float(np.mean(sums >= abs(diffs.sum()) - 1e-12))


def _monte_carlo_tolerance(p: float, n_resamples: int) -> float:
    # 4 binomial standard errors, plus the bias of the add-one estimator (at most 1/(N+1)).
    return 4.0 * math.sqrt(p * (1.0 - p) / n_resamples) + 1.0 / (n_resamples + 1)


def _paired_vectors(seed: int, n: int, kind: str) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    if kind == "continuous":
        a = rng.normal(0.5, 0.2, n)
        return a, a - rng.normal(0.05, 0.2, n)
    # Discrete grades: many tied values and zero differences, as with P@k or success.
    a = rng.integers(0, 5, n) / 4
    b = rng.integers(0, 5, n) / 4
    b[: n // 4] = a[: n // 4]
    return a, b


# --- paired t-test and Wilcoxon equal scipy ----------------------------------------------


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("n", [3, 8, 25, 60, 300])
@pytest.mark.parametrize("kind", ["continuous", "discrete"])
def test_paired_t_test_equals_scipy(seed: int, n: int, kind: str) -> None:
    a, b = _paired_vectors(seed, n, kind)
    expected = _scipy_quiet(scipy_stats.ttest_rel, a, b)
    assert paired_t_test(a, b) == pytest.approx(expected, rel=1e-12, abs=0, nan_ok=True)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("n", [5, 8, 25, 60, 300])
@pytest.mark.parametrize("kind", ["continuous", "discrete"])
def test_wilcoxon_equals_scipy(seed: int, n: int, kind: str) -> None:
    a, b = _paired_vectors(seed, n, kind)
    expected = _scipy_quiet(scipy_stats.wilcoxon, a, b)
    assert wilcoxon_test(a, b) == pytest.approx(expected, rel=1e-12, abs=0)


def test_tests_drop_pairs_with_a_missing_side() -> None:
    a = np.array([0.9, np.nan, 0.4, 0.8, 0.6, 0.7])
    b = np.array([0.5, 0.3, np.nan, 0.6, 0.65, 0.2])
    keep = [0, 3, 4, 5]
    assert paired_t_test(a, b) == pytest.approx(
        _scipy_quiet(scipy_stats.ttest_rel, a[keep], b[keep])
    )
    assert wilcoxon_test(a, b) == pytest.approx(
        _scipy_quiet(scipy_stats.wilcoxon, a[keep], b[keep])
    )


def test_degenerate_inputs_of_the_classical_tests() -> None:
    same = [0.5, 0.25, 1.0]
    # Every difference 0: Wilcoxon reports "no evidence" (1.0); t is 0/0, NaN like scipy.
    assert wilcoxon_test(same, same) == 1.0
    assert math.isnan(paired_t_test(same, same))
    # No pair at all, or one pair for t.
    assert math.isnan(wilcoxon_test([], []))
    assert math.isnan(paired_t_test([0.5], [0.2]))
    # A constant non-zero difference: scipy's t is infinite, p = 0.
    assert paired_t_test([1.0, 2.0, 3.0], [0.0, 1.0, 2.0]) == 0.0


def test_classical_tests_check_shapes() -> None:
    with pytest.raises(ParameterError, match="same length"):
        paired_t_test([1.0, 2.0], [1.0])
    with pytest.raises(ParameterError, match="one-dimensional"):
        wilcoxon_test([[1.0, 2.0]], [[1.0, 2.0]])


def test_missing_scipy_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "scipy", None)
    monkeypatch.setitem(sys.modules, "scipy.stats", None)
    with pytest.raises(MissingDependencyError, match=r'pip install "rankset\[stats\]"'):
        paired_t_test([1.0, 2.0, 3.0], [0.0, 1.0, 1.0])
    with pytest.raises(MissingDependencyError, match="scipy"):
        wilcoxon_test([1.0, 2.0, 3.0], [0.0, 1.0, 1.0])
    # The resampling functions need numpy only.
    assert paired_randomization_test([1.0, 2.0], n_resamples=10) > 0


# --- randomization test vs exact enumeration ---------------------------------------------

EXACT_CASES = {
    "all positive, n=12": np.array([3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8], dtype=float),
    "integers with ties and zeros, n=12": np.array([2, -1, 0, 3, 1, -2, 0, 1, 1, -1, 2, 0.0]),
    "mostly positive, n=10": np.array(
        [0.31, 0.12, -0.05, 0.22, 0.18, -0.11, 0.4, 0.07, 0.02, 0.15]
    ),
    "balanced, n=8": np.array([0.5, -0.4, 0.3, -0.35, 0.1, -0.2, 0.05, 0.0]),
    "symmetric, n=6": np.array([1.0, -1.0, 2.0, -2.0, 0.5, -0.5]),
    "n=1": np.array([0.7]),
}


@pytest.mark.parametrize("case", EXACT_CASES)
def test_randomization_p_is_within_monte_carlo_error_of_exact_enumeration(case: str) -> None:
    diffs = EXACT_CASES[case]
    exact = _exact_randomization_p(diffs)
    n_resamples = 20_000
    for seed in (0, 1, 2):
        p = paired_randomization_test(diffs, n_resamples=n_resamples, seed=seed)
        assert abs(p - exact) <= _monte_carlo_tolerance(exact, n_resamples), (p, exact)


def test_randomization_exact_p_values_of_the_cases_by_hand() -> None:
    # Guards the enumeration helper itself on cases countable by hand.
    # n=1: both signs give |sum| = 0.7, p = 1.
    assert _exact_randomization_p(np.array([0.7])) == 1.0
    # All 12 positive and distinct enough: only s = +1 and s = -1 reach the sum: 2 / 4096.
    assert _exact_randomization_p(EXACT_CASES["all positive, n=12"]) == 2 / 4096
    # Symmetric: the observed sum is 0, every sign vector reaches it.
    assert _exact_randomization_p(EXACT_CASES["symmetric, n=6"]) == 1.0


def test_randomization_in_many_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    # A tiny memory budget forces many chunks and a short last one.
    monkeypatch.setattr(draws, "_CHUNK_BYTES", 8 * 12 * 7)
    diffs = EXACT_CASES["integers with ties and zeros, n=12"]
    exact = _exact_randomization_p(diffs)
    p = paired_randomization_test(diffs, n_resamples=5003)
    assert abs(p - exact) <= _monte_carlo_tolerance(exact, 5003)


def test_randomization_edge_cases() -> None:
    assert paired_randomization_test([0.0, 0.0, 0.0]) == 1.0
    assert math.isnan(paired_randomization_test([]))
    assert math.isnan(paired_randomization_test([np.nan, np.nan]))
    # Never 0: the add-one estimator's floor is 1 / (N + 1).
    p = paired_randomization_test(np.ones(40), n_resamples=999)
    assert p == 1 / 1000
    # NaN is NA and dropped.
    diffs = [0.3, np.nan, 0.1, -0.2, 0.4]
    assert paired_randomization_test(diffs, seed=3, n_resamples=500) == paired_randomization_test(
        [0.3, 0.1, -0.2, 0.4], seed=3, n_resamples=500
    )


def test_randomization_is_seeded() -> None:
    diffs = np.random.default_rng(7).normal(0.02, 0.3, 200)
    first = paired_randomization_test(diffs, n_resamples=2000, seed=11)
    assert paired_randomization_test(diffs, n_resamples=2000, seed=11) == first
    assert paired_randomization_test(diffs, n_resamples=2000, seed=12) != first
    rng_p = paired_randomization_test(diffs, n_resamples=2000, rng=np.random.default_rng(11))
    assert rng_p == first


def test_batched_randomization_equals_one_at_a_time() -> None:
    rng = np.random.default_rng(5)
    matrix = rng.normal(0.01, 0.2, size=(300, 7))
    matrix[:, 3] = 0.0
    batched = paired_randomization_tests(matrix, n_resamples=3000, seed=4)
    single = [paired_randomization_test(matrix[:, j], n_resamples=3000, seed=4) for j in range(7)]
    assert batched.tolist() == single
    assert batched[3] == 1.0


def test_batched_functions_reject_missing_values() -> None:
    with pytest.raises(ParameterError, match="finite"):
        paired_randomization_tests(np.array([[0.1], [np.nan]]))
    with pytest.raises(ParameterError, match="matrix"):
        paired_bootstrap_cis(np.array([0.1, 0.2]))


# --- bootstrap confidence intervals ------------------------------------------------------


def test_bootstrap_ci_of_a_large_sample_matches_normal_theory() -> None:
    values = np.random.default_rng(2024).normal(0.3, 1.0, 5000)
    low, high = bootstrap_mean_ci(values, confidence=0.95, n_resamples=4000, seed=1)
    assert low < 0.3 < high
    # Normal theory: the interval is mean ± 1.96 s / sqrt(n).
    half = 1.959964 * values.std(ddof=1) / math.sqrt(values.size)
    assert (high - low) / 2 == pytest.approx(half, rel=0.08)
    assert (low + high) / 2 == pytest.approx(values.mean(), abs=0.15 * half)


def test_bootstrap_ci_narrows_with_more_queries() -> None:
    rng = np.random.default_rng(3)
    widths = []
    for n in (100, 1000, 10_000):
        low, high = paired_bootstrap_ci(rng.normal(0.0, 1.0, n), n_resamples=2000)
        widths.append(high - low)
    assert widths[0] > widths[1] > widths[2]
    # Width ~ 1 / sqrt(n): a tenfold n narrows it about sqrt(10) = 3.16 times.
    assert widths[0] / widths[2] == pytest.approx(10.0, rel=0.15)


def test_bootstrap_ci_by_hand() -> None:
    # A constant vector: every resample has the same mean.
    assert paired_bootstrap_ci([0.1] * 7) == (0.1, 0.1)
    assert bootstrap_mean_ci([0.1]) == (0.1, 0.1)
    # Values {0, 1}: a resampled mean is 0, 0.5 or 1 with probability 1/4, 1/2, 1/4, so
    # the 5% and 95% quantiles are 0 and 1, and the 30% and 70% quantiles are both 0.5.
    assert paired_bootstrap_ci([0.0, 1.0], confidence=0.9, n_resamples=4000) == (0.0, 1.0)
    assert paired_bootstrap_ci([0.0, 1.0], confidence=0.4, n_resamples=4000) == (0.5, 0.5)


def test_bootstrap_ci_edge_cases_and_na() -> None:
    assert all(math.isnan(x) for x in bootstrap_mean_ci([]))
    assert all(math.isnan(x) for x in paired_bootstrap_ci([np.nan]))
    values = [0.2, np.nan, 0.9, 0.4, np.nan, 0.6]
    assert bootstrap_mean_ci(values, seed=2) == bootstrap_mean_ci([0.2, 0.9, 0.4, 0.6], seed=2)


def test_bootstrap_is_seeded_and_batches_match() -> None:
    rng = np.random.default_rng(9)
    matrix = rng.normal(0.0, 1.0, size=(250, 4))
    first = paired_bootstrap_ci(matrix[:, 0], n_resamples=1500, seed=3)
    assert paired_bootstrap_ci(matrix[:, 0], n_resamples=1500, seed=3) == first
    assert paired_bootstrap_ci(matrix[:, 0], n_resamples=1500, seed=4) != first
    batched = paired_bootstrap_cis(matrix, n_resamples=1500, seed=3)
    for j in range(4):
        single = paired_bootstrap_ci(matrix[:, j], n_resamples=1500, seed=3)
        assert batched[j].tolist() == pytest.approx(list(single), rel=1e-12, abs=1e-12)


# --- multiple-testing corrections --------------------------------------------------------


def test_bonferroni_by_hand() -> None:
    # m = 4: p·4, capped at 1.
    p = [0.01, 0.04, 0.03, 0.005]
    assert adjust_pvalues(p, "bonferroni").tolist() == pytest.approx([0.04, 0.16, 0.12, 0.02])
    assert adjust_pvalues([0.5, 0.3], "bonferroni").tolist() == [1.0, 0.6]


def test_holm_by_hand() -> None:
    # Sorted: 0.005·4 = 0.02, 0.01·3 = 0.03, 0.03·2 = 0.06, 0.04·1 = 0.04 -> running max 0.06.
    p = [0.01, 0.04, 0.03, 0.005]
    assert adjust_pvalues(p, "holm").tolist() == pytest.approx([0.03, 0.06, 0.06, 0.02])
    # Step-down monotonicity: 0.02·2 = 0.04, then 0.03·1 = 0.03 is raised to 0.04.
    assert adjust_pvalues([0.03, 0.02], "holm").tolist() == pytest.approx([0.04, 0.04])
    # Cap: 0.5·2 = 1.0, then max(0.6, 1.0) = 1.0.
    assert adjust_pvalues([0.5, 0.6], "holm").tolist() == [1.0, 1.0]


def test_benjamini_hochberg_by_hand() -> None:
    # Sorted with rank j: 0.005·4/1 = 0.02, 0.01·4/2 = 0.02, 0.03·4/3 = 0.04, 0.04·4/4 = 0.04;
    # step-up running minimum from the largest leaves them as they are.
    p = [0.01, 0.04, 0.03, 0.005]
    assert adjust_pvalues(p, "bh").tolist() == pytest.approx([0.02, 0.04, 0.04, 0.02])
    # Step-up: 0.03·2/1 = 0.06 is lowered to the next one's 0.04·2/2 = 0.04.
    assert adjust_pvalues([0.04, 0.03], "bh").tolist() == pytest.approx([0.04, 0.04])
    # 0.5·2/1 = 1.0 lowered to 0.6·2/2 = 0.6.
    assert adjust_pvalues([0.5, 0.6], "bh").tolist() == pytest.approx([0.6, 0.6])


def test_nan_p_values_stay_nan_and_leave_the_family() -> None:
    p = [0.01, np.nan, 0.04]
    # m = 2, not 3.
    assert adjust_pvalues(p, "bonferroni").tolist() == pytest.approx(
        [0.02, np.nan, 0.08], nan_ok=True
    )
    assert adjust_pvalues(p, "holm").tolist() == pytest.approx([0.02, np.nan, 0.04], nan_ok=True)
    assert adjust_pvalues(p, "bh").tolist() == pytest.approx([0.02, np.nan, 0.04], nan_ok=True)
    assert np.isnan(adjust_pvalues([np.nan, np.nan], "holm")).all()
    assert adjust_pvalues([], "holm").size == 0
    assert adjust_pvalues(p, None).tolist() == pytest.approx(p, nan_ok=True)


def test_adjust_pvalues_checks_its_input() -> None:
    with pytest.raises(ParameterError, match=r"The 'correction' parameter must be one of"):
        adjust_pvalues([0.1], "fdr")  # type: ignore[arg-type]
    with pytest.raises(ParameterError, match=r"p-values in \[0, 1\]"):
        adjust_pvalues([0.1, 1.5], "holm")


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.one_of(st.floats(0.0, 1.0), st.just(float("nan"))),
        min_size=1,
        max_size=30,
    )
)
def test_corrections_are_ordered_and_bounded(p: list[float]) -> None:
    raw = np.array(p)
    present = ~np.isnan(raw)
    holm = adjust_pvalues(raw, "holm")
    bonferroni = adjust_pvalues(raw, "bonferroni")
    bh = adjust_pvalues(raw, "bh")
    for adjusted in (holm, bonferroni, bh):
        assert np.array_equal(np.isnan(adjusted), ~present)
        assert np.all(adjusted[present] >= raw[present] - 1e-15)
        assert np.all(adjusted[present] <= 1.0)
        # A smaller p never gets a larger adjusted p.
        order = np.argsort(raw[present], kind="stable")
        assert np.all(np.diff(adjusted[present][order]) >= -1e-15)
    assert np.all(bh[present] <= holm[present] + 1e-15)
    assert np.all(holm[present] <= bonferroni[present] + 1e-15)


# --- parameters --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"n_resamples": 0}, r"The 'n_resamples' parameter must be an int >= 1. Got 0 instead."),
        ({"n_resamples": 2.5}, r"The 'n_resamples' parameter must be an int >= 1. Got 2.5"),
        ({"seed": -1}, r"The 'seed' parameter must be an int >= 0. Got -1 instead."),
        ({"confidence": 1.5}, r"The 'confidence' parameter must be a float in \(0, 1\). Got 1.5"),
        ({"confidence": 0}, r"The 'confidence' parameter must be a float in \(0, 1\). Got 0"),
        ({"rng": 3}, r"The 'rng' parameter must be a numpy.random.Generator. Got 3"),
    ],
)
def test_resampling_parameters_are_checked(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ParameterError, match=message):
        paired_bootstrap_ci([0.1, 0.2], **kwargs)  # type: ignore[arg-type]
    if "confidence" not in kwargs:
        with pytest.raises(ParameterError, match=message):
            paired_randomization_test([0.1, 0.2], **kwargs)  # type: ignore[arg-type]


def test_non_numeric_input_is_a_parameter_error() -> None:
    with pytest.raises(ParameterError, match="sequence of numbers"):
        paired_randomization_test(["a", "b"])
