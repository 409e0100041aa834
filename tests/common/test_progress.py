"""The progress callback of the resampling kernels, and the helpers of rankset.stats.

Each kernel calls ``progress(done, n_resamples, "resamples")`` once per chunk of draws,
with counts that grow and end at ``n_resamples``, and gives the values it gives without
a callback. A tiny memory budget forces many chunks: with ``_CHUNK_BYTES = 8 * n * 7`` a
chunk holds 7 resamples, so 50 resamples come in chunks of 7, ..., 7, 1.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from rankset import _progress, stats
from rankset.errors import ParameterError
from rankset.stats import _draws as draws

N_QUERIES = 12
N_RESAMPLES = 50
EXPECTED = [7, 14, 21, 28, 35, 42, 49, 50]  # 50 resamples, 7 per chunk


class Calls:
    def __init__(self) -> None:
        self.calls: list[tuple[int, int, str]] = []

    def __call__(self, done: int, total: int, what: str) -> None:
        self.calls.append((done, total, what))

    @property
    def counts(self) -> list[int]:
        return [done for done, _, _ in self.calls]


@pytest.fixture
def seven_per_chunk(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(draws, "_CHUNK_BYTES", 8 * N_QUERIES * 7)


def _diffs() -> np.ndarray[Any, np.dtype[np.float64]]:
    return np.random.default_rng(3).normal(size=(N_QUERIES, 3))


KERNELS: dict[str, Callable[..., Any]] = {
    "randomization": lambda d, **kw: stats.paired_randomization_tests(d, **kw),
    "bootstrap": lambda d, **kw: stats.paired_bootstrap_cis(d, **kw),
    "column means": lambda d, **kw: stats.bootstrap_column_mean_cis(d, **kw),
    "effect sizes": lambda d, **kw: stats.bootstrap_difference_and_effect_cis(d, **kw),
    "ranks": lambda d, **kw: stats.bootstrap_rank_intervals(d, **kw),
}


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_kernels_count_their_resamples(seven_per_chunk: None, name: str) -> None:
    kernel = KERNELS[name]
    calls = Calls()
    counted = kernel(_diffs(), n_resamples=N_RESAMPLES, seed=5, progress=calls)
    assert calls.counts == EXPECTED
    assert {(total, what) for _, total, what in calls.calls} == {(N_RESAMPLES, "resamples")}
    # the callback changes nothing of the draws
    silent = kernel(_diffs(), n_resamples=N_RESAMPLES, seed=5)
    if isinstance(counted, tuple):
        for left, right in zip(counted, silent, strict=True):
            np.testing.assert_array_equal(left, right)
    else:
        np.testing.assert_array_equal(counted, silent)


def test_randomized_tukey_counts_its_permutations(monkeypatch: pytest.MonkeyPatch) -> None:
    matrix = np.random.default_rng(4).normal(size=(10, 3))
    # Tukey's chunks hold n_queries * n_systems cells per permutation: 6 per chunk here.
    monkeypatch.setattr(draws, "_CHUNK_BYTES", 8 * 30 * 6)
    calls = Calls()
    counted = stats.randomized_tukey_hsd(matrix, n_resamples=40, progress=calls)
    assert calls.counts == [6, 12, 18, 24, 30, 36, 40]
    assert {total for _, total, _ in calls.calls} == {40}
    np.testing.assert_array_equal(counted, stats.randomized_tukey_hsd(matrix, n_resamples=40))


def test_one_chunk_is_one_call() -> None:
    calls = Calls()
    stats.paired_randomization_tests(_diffs(), n_resamples=100, progress=calls)
    assert calls.calls == [(100, 100, "resamples")]


# --- the helpers -------------------------------------------------------------------------


def test_steps_count_before_each_step_and_finish_at_the_total() -> None:
    calls = Calls()
    steps = _progress.Steps(calls, 3)
    steps("reading")
    inner = steps.part("comparing")
    assert inner is not None
    inner(1, 4, "resamples")
    inner(4, 4, "resamples")
    steps("writing")
    steps.finish()
    assert calls.calls == [
        (0, 3, "reading"),
        (1, 3, "comparing"),
        (1, 3, "comparing: 1/4 resamples"),
        (1, 3, "comparing: 4/4 resamples"),
        (2, 3, "writing"),
        (3, 3, "done"),
    ]


def test_silent_steps_give_no_inner_callback() -> None:
    steps = _progress.Steps(None, 2)
    steps("one")
    assert steps.part("two") is None
    steps.finish()
    assert steps.done == 2


def test_a_tally_adds_up_consecutive_jobs() -> None:
    calls = Calls()
    tally = _progress.Tally(calls, 30, "resamples")
    first, second, third = tally.job(10), tally.job(10), tally.job(10)
    assert first is not None
    assert second is not None
    assert third is not None
    first(10, 10, "resamples")
    second(3, 10, "resamples")
    second(10, 10, "resamples")
    third(10, 10, "resamples")
    assert calls.counts == [10, 13, 20, 30]
    assert {(total, what) for _, total, what in calls.calls} == {(30, "resamples")}
    assert _progress.Tally(None, 10, "x").job(10) is None


def test_progress_text_gives_the_eta_at_the_rate_so_far() -> None:
    # 4 of 10 in 2 s: 0.5 s each, 6 left: 3 s
    assert _progress.progress_text(4, 10, "buckets", 2.0) == "buckets  4/10  2.0 s, ETA 3 s"
    assert _progress.progress_text(0, 10, "buckets", 0.5) == "buckets  0/10  0.5 s"
    assert _progress.progress_text(2000, 2000, "done", 1.25) == "done  2,000/2,000  1.2 s"


def test_resolve_progress() -> None:
    calls = Calls()
    assert _progress.resolve_progress(calls, "x") is calls
    assert _progress.resolve_progress(False, "x") is None
    assert _progress.resolve_progress(None, "x") is None  # no notebook here
    with pytest.raises(ParameterError, match="'progress' parameter must be a callable"):
        _progress.resolve_progress(3, "x")  # type: ignore[arg-type]


# --- the comparison ----------------------------------------------------------------------


def _per_query(n_queries: dict[str, int]) -> Any:
    """A tidy per-query frame: systems base and new, each metric over its own queries."""
    import polars as pl

    rng = np.random.default_rng(0)
    rows = [
        (system, f"q{q}", metric, float(rng.random()))
        for metric, count in n_queries.items()
        for q in range(count)
        for system in ("base", "new")
    ]
    return pl.DataFrame(rows, schema=["system", "query_id", "metric", "value"], orient="row")


def test_compare_counts_the_resamples_of_every_comparison(seven_per_chunk: None) -> None:
    from rankset.comparison.pairwise import compare

    calls = Calls()
    # Two metrics over 12 queries share their draws; one over 9 draws its own: two
    # groups, each with a randomization test and a bootstrap of 50 resamples.
    frame = _per_query({"ap": N_QUERIES, "rr": N_QUERIES, "p@5": 9})
    counted = compare(
        frame, "base", tests=["randomization"], n_resamples=50, progress=calls, correction=None
    )
    total = 2 * 2 * 50
    assert {(t, what) for _, t, what in calls.calls} == {(total, "resamples")}
    assert calls.counts == sorted(calls.counts)  # never falls
    assert calls.counts[-1] == total
    assert len(calls.counts) > 4  # per chunk, not per test
    silent = compare(frame, "base", tests=["randomization"], n_resamples=50, correction=None)
    assert counted.equals(silent)


def test_evaluate_counts_its_buckets_and_keeps_its_values() -> None:
    import polars as pl

    import rankset

    queries = {f"q{i}": {f"d{j}": float(j % 5) for j in range(8)} for i in range(40)}
    labels = {f"q{i}": {"d1": 1, f"d{i % 8}": 2} for i in range(40)}
    calls: list[tuple[int, int, str]] = []
    counted = rankset.evaluate(
        queries,
        labels,
        ["ap", "ndcg@5"],
        buckets=6,
        confidence=None,
        progress=lambda done, total, what: calls.append((done, total, what)),
    )
    # One call before each occupied bucket's pass (its number: the buckets before it are
    # done), then (6, 6): never falling, ending at the total.
    assert calls[-1] == (6, 6, "buckets")
    assert all(total == 6 and what == "buckets" for _, total, what in calls)
    done = [d for d, _, _ in calls]
    assert done == sorted(done)
    assert len(done) == len(set(done))
    assert 2 <= len(calls) <= 7
    plain = rankset.evaluate(queries, labels, ["ap", "ndcg@5"], confidence=None)
    assert counted.per_query.sort("query_id", "metric").equals(
        plain.per_query.sort("query_id", "metric")
    )
    assert isinstance(counted.per_query, pl.DataFrame)
    nothing: list[tuple[int, int, str]] = []
    rankset.evaluate(
        queries, labels, ["ap"], confidence=None, progress=lambda *a: nothing.append(a)
    )
    assert nothing == []  # without buckets nothing is counted
