"""Helpers for testing code that uses rankset, and rankset itself.

:func:`assert_results_equal` compares two evaluation results bit for bit (or within a
tolerance); :mod:`rankset.testing.strategies` has Hypothesis strategies that draw runs
and labels with ties, unlabelled and unanswered queries (needs ``hypothesis``: ``pip
install "rankset[testing]"``).
"""

from __future__ import annotations

import polars as pl
from polars.testing import assert_frame_equal

from rankset.evaluation import EvaluationResult

__all__ = ["assert_results_equal"]


def assert_results_equal(
    left: EvaluationResult,
    right: EvaluationResult,
    *,
    check_exact: bool = True,
    rtol: float = 1e-12,
    atol: float = 0.0,
    check_summary: bool = True,
) -> None:
    """Assert that two evaluation results hold the same values, query by query.

    The per-query frames are compared in a canonical row order (system, metric,
    query), so two results of the same evaluation in another input order compare
    equal. ``check_exact=True`` (the default) demands the same bits: rankset gives the
    same bits for the same input whatever the engine, the bucket count or the row order.

    Parameters
    ----------
    left, right
        The results to compare.
    check_exact
        Compare floats bit for bit; otherwise within ``rtol`` and ``atol``.
    rtol, atol
        Tolerances when ``check_exact`` is False.
    check_summary
        Also compare the summaries and the query counts.

    Raises
    ------
    AssertionError
        Naming the first frame and column that differ.

    Examples
    --------
    >>> import rankset
    >>> run = {"q1": {"a": 2.0, "b": 1.0}, "q2": {"c": 1.0}}
    >>> labels = {"q1": {"b": 1}, "q2": {"c": 2}}
    >>> one = rankset.evaluate(run, labels, ["ndcg@10", "rr"])
    >>> by_bucket = rankset.evaluate(run, labels, ["ndcg@10", "rr"], buckets=2)
    >>> assert_results_equal(one, by_bucket)
    >>> other = rankset.evaluate(run, labels, ["ndcg@10", "rr"], relevance_level=2)
    >>> assert_results_equal(one, other)
    Traceback (most recent call last):
    ...
    AssertionError: ...
    """
    order = ["system", "metric", "query_id"]
    frames: list[tuple[str, pl.DataFrame, pl.DataFrame]] = [
        ("per_query", left.per_query.sort(order), right.per_query.sort(order))
    ]
    if check_summary:
        frames += [
            (
                "summary",
                left.summary.sort("system", "metric"),
                right.summary.sort("system", "metric"),
            ),
            ("query_counts", left.query_counts.sort("system"), right.query_counts.sort("system")),
        ]
    for name, got, want in frames:
        try:
            assert_frame_equal(got, want, check_exact=check_exact, rel_tol=rtol, abs_tol=atol)
        except AssertionError as error:
            msg = f"The results' {name} differ: {error}"
            raise AssertionError(msg) from None
