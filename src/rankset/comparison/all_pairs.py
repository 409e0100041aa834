"""Many systems at once: all-pairs comparisons, rank intervals, ANOVA and replicates.

:func:`rankset.compare` tests each system against one baseline. With five to fifty
systems (a leaderboard, an ablation grid, the seeds of one model) the questions change:
which pairs differ once the error over *all* pairs is controlled, how large each
difference is, which systems are tied with the best, how stable each rank is.

- :func:`compare_all` compares every pair of systems (or every system with each of
  several baselines): the paired tests with their correction over every row of a test,
  or the family-wise Tukey HSD and randomised Tukey HSD, plus a paired effect size
  (mean difference over the standard deviation of the differences) with its bootstrap
  interval beside every difference.
- :func:`significance_matrix` turns it into a systems × systems matrix.

Rank intervals, the ANOVA table and replicates are in :mod:`rankset.comparison.many_systems`.

Each system in an all-pairs row is compared as ``system - baseline``, where the
baseline is the system given first.
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from rankset._typing import Correction, Test
from rankset._validation import did_you_mean
from rankset.comparison._inputs import (
    COMPARE_COLUMNS,
    check_options,
    higher_is_better,
    per_query_frame,
    select_metrics,
    tidy_values,
    warn_unreachable_significance,
)
from rankset.comparison.family_tests import FAMILY_TESTS, family_rows
from rankset.comparison.pairwise import TESTS, check_tests, compare
from rankset.errors import ParameterError
from rankset.evaluation import EvaluationResult

__all__ = ["ALL_PAIRS_COLUMNS", "compare_all", "comparison_rows", "significance_matrix"]

#: Columns of :func:`compare_all`'s frame: :data:`rankset.comparison.pairwise.COMPARE_COLUMNS` with
#: ``baseline`` after ``system`` and the effect size and its interval before ``p``.
ALL_PAIRS_COLUMNS = (
    COMPARE_COLUMNS[0],
    "baseline",
    *COMPARE_COLUMNS[1 : COMPARE_COLUMNS.index("p")],
    "effect_size",
    "effect_ci_low",
    "effect_ci_high",
    *COMPARE_COLUMNS[COMPARE_COLUMNS.index("p") :],
)

Result = EvaluationResult | pl.DataFrame | pl.LazyFrame


def compare_all(
    result: Result,
    *,
    metrics: Sequence[str] | None = None,
    baselines: Sequence[str] | None = None,
    tests: Sequence[Test] = ("randomization",),
    correction: Correction | None = "holm",
    alpha: float = 0.05,
    seed: int = 0,
    n_resamples: int = 10_000,
    confidence: float = 0.95,
) -> pl.DataFrame:
    """Compare every pair of systems (or every system with several baselines).

    Parameters
    ----------
    result
        An :class:`~rankset.EvaluationResult` or a per-query frame ``system, query_id,
        metric, value``, as for :func:`rankset.compare`.
    metrics
        Metrics to compare; by default every metric of the result.
    baselines
        Compare every other system with each of these; by default every pair, each
        pair once, the system given first as its baseline. A pair of two baselines is
        compared once, against the baseline listed first.
    tests
        Any of :data:`rankset.comparison.pairwise.ALL_TESTS`. The paired tests (``"randomization"``,
        ``"t"``, ``"wilcoxon"``) run on the queries each pair shares, and ``correction``
        adjusts each test's p-values over all its rows (every pair and metric). The
        family-wise tests (``"tukey"``, ``"randomized_tukey"``) test every system at
        once on the queries all of them scored: their ``p`` is already family-wise over
        the pairs of systems, and ``p_adj`` equals it.
    correction, alpha, seed, n_resamples, confidence
        As for :func:`rankset.compare`; ``n_resamples`` is also the number of
        permutations of the randomised Tukey HSD and of the effect sizes' bootstrap.

    Returns
    -------
    polars.DataFrame
        :data:`ALL_PAIRS_COLUMNS`, one row per (pair, metric, test), in the order of the
        systems, the metrics and the tests: :func:`rankset.compare`'s columns, with
        ``baseline`` after ``system`` and the paired effect size ``effect_size``
        (Cohen's d for paired data: the mean difference over the standard deviation of
        the per-query differences) with its percentile bootstrap interval.

    Examples
    --------
    >>> import rankset
    >>> runs = {
    ...     "a": {"q1": {"x": 2.0, "y": 1.0}, "q2": {"z": 2.0, "w": 1.0}},
    ...     "b": {"q1": {"y": 2.0, "x": 1.0}, "q2": {"z": 2.0, "w": 1.0}},
    ...     "c": {"q1": {"y": 2.0, "x": 1.0}, "q2": {"w": 2.0, "z": 1.0}},
    ... }
    >>> labels = {"q1": {"y": 1}, "q2": {"z": 1}}
    >>> result = rankset.evaluate(runs, labels, ["rr"])
    >>> table = compare_all(result, n_resamples=1000)
    >>> table.select("system", "baseline", "delta", "wins", "losses").rows()
    [('b', 'a', 0.25, 1, 0), ('c', 'a', 0.0, 1, 1), ('c', 'b', -0.25, 0, 1)]
    """
    per_query, known = per_query_frame(result)
    names = select_metrics(metrics, known)
    chosen = check_tests(tests)
    check_options(correction, alpha, seed, n_resamples, confidence)
    systems = [str(s) for s in per_query["system"].unique(maintain_order=True).to_list()]
    if len(systems) < 2:
        msg = f"compare_all() needs two systems or more. Got {systems!r}."
        raise ParameterError(msg)
    pairs = _pairs(systems, baselines)
    frame = tidy_values(per_query, names)
    greater = {name: higher_is_better(name) for name in names}
    pieces = []
    paired = [test for test in chosen if test in TESTS]
    if paired:
        pieces.append(
            _paired(frame, systems, pairs, names, paired, correction, alpha, seed, n_resamples,
                    confidence)
        )  # fmt: skip
    family = [test for test in chosen if test in FAMILY_TESTS]
    if family:
        pieces.append(
            family_rows(
                frame, systems, pairs, names, family, greater=greater, alpha=alpha, seed=seed,
                n_resamples=n_resamples, confidence=confidence, effect_sizes=True,
            )
        )  # fmt: skip
    # The pairs' order as a frame: a join, not a Python call per row.
    pair_order = pl.DataFrame(
        [(system, baseline, i) for i, (system, baseline) in enumerate(pairs)],
        schema={"system": pl.String, "baseline": pl.String, "_pair": pl.Int64},
        orient="row",
    )
    metric_rank = {name: i for i, name in enumerate(names)}
    test_rank = {test: i for i, test in enumerate(chosen)}
    return (
        pl.concat([piece.select(ALL_PAIRS_COLUMNS) for piece in pieces])
        .join(pair_order, on=["system", "baseline"], how="left")
        .with_columns(
            _metric=pl.col("metric").replace_strict(metric_rank, return_dtype=pl.Int64),
            _test=pl.col("test").replace_strict(test_rank, return_dtype=pl.Int64),
        )
        .sort("_pair", "_metric", "_test")
        .drop("_pair", "_metric", "_test")
    )


def significance_matrix(
    comparison: pl.DataFrame,
    *,
    metric: str | None = None,
    test: str | None = None,
    value: str = "p_adj",
) -> pl.DataFrame:
    """One metric and test of :func:`compare_all` as a systems × systems matrix.

    Parameters
    ----------
    comparison
        A frame from :func:`compare_all`.
    metric, test
        Which rows (by default the frame's first metric and first test).
    value
        The column to spread: ``"p_adj"`` (default), ``"p"``, ``"delta"``,
        ``"effect_size"`` or ``"reject"``. ``delta`` and ``effect_size`` read as
        row minus column; the other values are symmetric.

    Returns
    -------
    polars.DataFrame
        A ``system`` column and one column per system, in the comparison's order; the
        diagonal is null.

    Examples
    --------
    >>> frame = pl.DataFrame(
    ...     {"system": ["b", "c", "c"], "baseline": ["a", "a", "b"], "metric": "rr",
    ...      "test": "t", "delta": [0.5, 0.0, -0.5], "p_adj": [0.2, 1.0, 0.2]}
    ... )
    >>> significance_matrix(frame, value="delta").rows()
    [('a', None, -0.5, 0.0), ('b', 0.5, None, 0.5), ('c', 0.0, -0.5, None)]
    """
    if value not in comparison.columns:
        msg = f"The 'value' parameter must name a column of the comparison. Got {value!r}."
        raise ParameterError(msg + did_you_mean(value, comparison.columns))
    rows = comparison_rows(comparison, metric, test)
    antisymmetric = value in ("delta", "effect_size")
    flipped = rows.select(
        pl.col("baseline").alias("system"),
        pl.col("system").alias("baseline"),
        # -0.0 would print as such: a zero difference stays 0.0 both ways
        pl.when(pl.col(value) == 0).then(0.0).otherwise(-pl.col(value)).alias(value)
        if antisymmetric
        else pl.col(value),
    )
    both = pl.concat([rows.select("system", "baseline", value), flipped])
    systems: list[str] = []
    for pair in rows.select("baseline", "system").iter_rows():
        for system in pair:
            if system not in systems:
                systems.append(system)
    wide = both.pivot(on="baseline", index="system", values=value)
    missing = [s for s in systems if s not in wide.columns]
    wide = wide.with_columns(pl.lit(None, dtype=both[value].dtype).alias(s) for s in missing)
    order = {system: i for i, system in enumerate(systems)}
    return (
        wide.with_columns(_order=pl.col("system").replace_strict(order, return_dtype=pl.Int64))
        .sort("_order")
        .select("system", *systems)
    )


# --- helpers -------------------------------------------------------------------------------


def comparison_rows(
    comparison: pl.DataFrame, metric: str | None = None, test: str | None = None
) -> pl.DataFrame:
    """Return the rows of one metric and one test (by default the frame's first of each).

    Raises
    ------
    ParameterError
        The frame has no such rows.
    """
    if comparison.height == 0:
        raise ParameterError("The comparison has no rows.")
    metric = metric or str(comparison["metric"][0])
    test = test or str(comparison["test"][0])
    rows = comparison.filter((pl.col("metric") == metric) & (pl.col("test") == test))
    if rows.height == 0:
        msg = f"The comparison has no rows for metric {metric!r} and test {test!r}."
        raise ParameterError(msg)
    return rows


def _pairs(systems: list[str], baselines: Sequence[str] | None) -> list[tuple[str, str]]:
    """``(system, baseline)`` pairs, each unordered pair once, in the systems' order."""
    if baselines is None:
        return [
            (systems[j], systems[i])
            for i in range(len(systems))
            for j in range(i + 1, len(systems))
        ]
    chosen = [baselines] if isinstance(baselines, str) else list(baselines)
    for baseline in chosen:
        if baseline not in systems:
            msg = (
                f"The 'baselines' parameter must name systems among {systems!r}. "
                f"Got {baseline!r} instead."
            )
            raise ParameterError(msg + did_you_mean(str(baseline), systems))
    pairs: list[tuple[str, str]] = []
    seen: set[frozenset[str]] = set()
    for baseline in dict.fromkeys(chosen):
        for system in systems:
            key = frozenset((system, baseline))
            if system != baseline and key not in seen:
                seen.add(key)
                pairs.append((system, baseline))
    return pairs


def _paired(
    frame: pl.DataFrame,
    systems: list[str],
    pairs: list[tuple[str, str]],
    names: list[str],
    tests: list[Test],
    correction: Correction | None,
    alpha: float,
    seed: int,
    n_resamples: int,
    confidence: float,
) -> pl.DataFrame:
    """Return the paired tests' rows, each test corrected over every pair and metric."""
    import numpy as np

    from rankset import stats
    from rankset.stats import multiple

    pieces = []
    for baseline in dict.fromkeys(b for _, b in pairs):
        others = [s for s, b in pairs if b == baseline]
        subset = frame.filter(pl.col("system").is_in([baseline, *others]))
        rows = compare(
            subset, baseline, metrics=names, tests=tests, correction=None, alpha=alpha,
            seed=seed, n_resamples=n_resamples, confidence=confidence,
        )  # fmt: skip
        pieces.append(rows.with_columns(pl.lit(baseline).alias("baseline")))
    rows = pl.concat(pieces)
    # Effect sizes on each pair's shared queries, by query id, as compare aligns them.
    right = frame.rename({"system": "baseline", "value": "base"})
    wanted = pl.DataFrame(pairs, schema=["system", "baseline"], orient="row")
    diffs = (
        wanted.join(frame, on="system")
        .join(right, on=["baseline", "metric", "query_id"])
        .filter(pl.col("value").is_not_null() & pl.col("base").is_not_null())
        .sort("system", "baseline", "metric", "query_id")
        .group_by("system", "baseline", "metric", maintain_order=True)
        .agg(diff=pl.col("value") - pl.col("base"))
    )
    effect = np.full((diffs.height, 3), np.nan)
    sizes = diffs["diff"].list.len().to_list()
    by_size: dict[int, list[int]] = {}
    for index, size in enumerate(sizes):
        if size >= 2:
            by_size.setdefault(size, []).append(index)
    columns = diffs["diff"].to_list()
    for size, members in by_size.items():
        matrix = np.column_stack([columns[i] for i in members]).reshape(size, len(members))
        effect[members, 0] = multiple.paired_effect_sizes(matrix)
        effect[members, 1:] = multiple.bootstrap_effect_size_cis(
            matrix, confidence=confidence, n_resamples=n_resamples, seed=seed
        )
    effects = diffs.select("system", "baseline", "metric").with_columns(
        pl.Series("effect_size", effect[:, 0], nan_to_null=True),
        pl.Series("effect_ci_low", effect[:, 1], nan_to_null=True),
        pl.Series("effect_ci_high", effect[:, 2], nan_to_null=True),
    )
    rows = rows.join(effects, on=["system", "baseline", "metric"], how="left")
    adjusted = []
    for test in tests:
        part = rows.filter(pl.col("test") == test)
        if test == "randomization":
            warn_unreachable_significance(part.height, n_resamples, alpha, correction)
        p = part["p"].fill_null(float("nan")).to_numpy()
        adjusted.append(
            part.with_columns(
                pl.Series("p_adj", stats.adjust_pvalues(p, correction), nan_to_null=True)
            ).with_columns(reject=pl.col("p_adj") < alpha)
        )
    return pl.concat(adjusted)
