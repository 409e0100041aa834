"""Compare systems against a baseline: paired tests, bootstrap CIs, corrections, win/tie/loss.

:func:`compare` turns a tidy per-query result into a tidy comparison frame, one row per
(system, metric[, slice], test). The rules, stated once:

Alignment
    For each (system, metric[, slice]) the compared queries are those where both the
    system and the baseline have a value (not NA): the intersection. A query that
    either side lacks, or that is NA on either side, is dropped *for that metric* and
    counted in ``n_dropped``. Nothing is filled in: unlike PyTerrier's significance
    tests, where a query missing from one system silently became a 0 or shifted the
    pairing of the other queries, every pair compares the same query. Within a
    comparison queries are ordered by ``query_id``, so row order of the input never
    changes a result.
Direction
    ``wins``/``ties``/``losses`` follow the metric's ``greater_is_better`` (for
    ``harm@k`` a lower value is a win); a tie is exactly equal values.
Correction family
    All rows of the same test: every (system, metric, slice) comparison in the frame
    tested by that test. The table is read as a whole (a reader scans every system and
    metric for a significant row), so the correction covers every claim the table makes;
    per-metric families would let the number of metrics inflate the chance of some false
    claim. The three tests are alternative analyses of the same hypotheses, not extra
    hypotheses, so each test forms its own family.
Imports
    This module imports neither numpy nor scipy when loaded (``rankset.stats.paired`` is
    imported by :func:`compare` when called), so the package can bind the function
    ``rankset.compare`` eagerly without making ``import rankset`` heavier.
Randomness
    One ``seed`` drives the randomization test and the bootstrap; comparisons over the
    same number of queries share the sign matrix and the bootstrap draws (one matrix
    product for all of them). The same inputs and seed give an identical frame.

Examples
--------
>>> import polars as pl
>>> from rankset.comparison.pairwise import compare
>>> per_query = pl.DataFrame(
...     {
...         "system": ["base"] * 4 + ["new"] * 4,
...         "query_id": ["q1", "q2", "q3", "q4"] * 2,
...         "metric": "rr",
...         "value": [0.5, 1.0, 0.25, None, 1.0, 1.0, 0.5, 1.0],
...     }
... )
>>> out = compare(per_query, "base", tests=["randomization"], n_resamples=500)
>>> out.select("system", "metric", "n_queries", "n_dropped", "delta", "wins", "ties", "losses")
shape: (1, 8)
┌────────┬────────┬───────────┬───────────┬───────┬──────┬──────┬────────┐
│ system ┆ metric ┆ n_queries ┆ n_dropped ┆ delta ┆ wins ┆ ties ┆ losses │
│ ---    ┆ ---    ┆ ---       ┆ ---       ┆ ---   ┆ ---  ┆ ---  ┆ ---    │
│ str    ┆ str    ┆ u32       ┆ u32       ┆ f64   ┆ u32  ┆ u32  ┆ u32    │
╞════════╪════════╪═══════════╪═══════════╪═══════╪══════╪══════╪════════╡
│ new    ┆ rr     ┆ 3         ┆ 1         ┆ 0.25  ┆ 2    ┆ 1    ┆ 0      │
└────────┴────────┴───────────┴───────────┴───────┴──────┴──────┴────────┘
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from typing import TYPE_CHECKING

import polars as pl

from rankset._dependencies import require_scipy
from rankset._typing import Test, choices_of
from rankset._validation import did_you_mean, warn_user
from rankset.comparison._inputs import (
    COMPARE_COLUMNS,
    check_baseline,
    check_by,
    check_options,
    higher_is_better,
    per_query_frame,
    query_slices,
    select_metrics,
    tidy_values,
    warn_unreachable_significance,
)
from rankset.comparison._paired_tests import run_paired_tests
from rankset.comparison._pairs import (
    BASE,
    BASELINE_ORDER,
    METRIC_ORDER,
    SYSTEM_ORDER,
    coded_values,
    pair_with_baseline,
    summarise_pairs,
)
from rankset.comparison.family_tests import FAMILY_TESTS, family_rows
from rankset.errors import MissingDependencyError, ParameterError, RanksetWarning
from rankset.evaluation import EvaluationResult

if TYPE_CHECKING:
    from rankset.stats import Progress
    from rankset.stats.paired import Correction

__all__ = [
    "ALL_TESTS",
    "COMPARE_COLUMNS",
    "FAMILY_TESTS",
    "TESTS",
    "Test",
    "check_tests",
    "compare",
    "compare_each",
    "higher_is_better",
    "paired_outcome",
]

#: Every test :func:`compare` can run.
ALL_TESTS: tuple[Test, ...] = choices_of(Test)  # type: ignore[assignment]
#: The paired tests, run by default.
TESTS: tuple[Test, ...] = tuple(t for t in ALL_TESTS if t not in FAMILY_TESTS)

_TEST_ORDER = "_test_order"


def compare(
    result: EvaluationResult | pl.DataFrame | pl.LazyFrame,
    baseline: str,
    *,
    metrics: Sequence[str] | None = None,
    tests: Sequence[Test] | None = None,
    correction: Correction | None = "holm",
    alpha: float = 0.05,
    seed: int = 0,
    n_resamples: int = 10_000,
    confidence: float = 0.95,
    by: str | Sequence[str] | None = None,
    metadata: pl.DataFrame | None = None,
    progress: Progress | None = None,
) -> pl.DataFrame:
    """Compare every system with a baseline, per metric (and per slice), with paired tests.

    Parameters
    ----------
    result
        An :class:`~rankset.EvaluationResult` or a tidy per-query frame with columns
        ``system, query_id, metric, value`` (null = NA), like its ``per_query``.
    baseline
        The system the others are compared with.
    metrics
        Metrics to compare (any accepted spelling); by default every metric of the
        result, in its order.
    tests
        Any of ``"randomization"`` (paired sign-flip test of the mean difference),
        ``"t"`` (paired t-test) and ``"wilcoxon"`` (signed-rank test), run by default;
        and the family-wise ``"tukey"`` (Tukey's HSD over a systems × queries ANOVA)
        and ``"randomized_tukey"`` (Sakai's randomised Tukey HSD), which test every
        system at once on the queries all of them scored, so their ``p_adj`` is their
        ``p`` (see :mod:`rankset.comparison.family_tests`). ``"t"``, ``"wilcoxon"`` and
        ``"tukey"`` need scipy (``pip install "rankset[stats]"``). None (the default):
        the three paired tests, or the randomization test alone, with a warning, when
        scipy is not installed (the core install).
    correction
        Multiple-testing correction within each test's rows: ``"holm"``,
        ``"bonferroni"``, ``"bh"`` (Benjamini-Hochberg) or ``None``.
    alpha
        Level at which ``reject`` is true (``p_adj < alpha``).
    seed
        Seed of the randomization test and the bootstrap.
    n_resamples
        Number of random sign assignments and of bootstrap resamples.
    confidence
        Coverage of the bootstrap interval of ``delta``.
    by
        Per-query column(s) to slice by (topic, language, difficulty...): comparisons
        are made within each slice. Taken from ``metadata`` when given, else from the
        per-query frame.
    metadata
        Frame with ``query_id`` and the ``by`` columns, one row per query. Queries it
        does not list get null slice values and form their own slice.
    progress
        Called with ``(done, total, "resamples")`` as the paired tests' resamples are
        drawn (the randomization test's and the bootstrap's, over every comparison; the
        family-wise tests are not counted); see :data:`rankset.stats.Progress`.

    Returns
    -------
    polars.DataFrame
        One row per (system, metric[, by...], test), ordered by system, metric (as given),
        slice and test, with columns ``system, metric, [by...], test, n_queries``
        (aligned queries), ``n_dropped`` (queries only one side has, or NA on either
        side), ``mean, baseline_mean`` (over the aligned queries), ``delta`` (``mean -
        baseline_mean``), ``ci_low, ci_high`` (paired percentile bootstrap CI of
        ``delta``), ``p, p_adj, reject, wins, ties, losses``. Statistics that cannot be
        computed (no aligned query, a t-test on identical values) are null.

    Raises
    ------
    ParameterError
        For an unknown baseline, metric, test or ``by`` column, or an invalid option.
    SchemaError
        When the per-query frame lacks a column or repeats a (system, query, metric).
    MissingDependencyError
        When ``"t"`` or ``"wilcoxon"`` is asked for without scipy installed.

    Examples
    --------
    >>> import rankset
    >>> from rankset.comparison.pairwise import compare
    >>> runs = {
    ...     "base": {"q1": {"a": 2.0, "b": 1.0}, "q2": {"c": 2.0, "d": 1.0}},
    ...     "new": {"q1": {"b": 2.0, "a": 1.0}, "q2": {"c": 2.0, "d": 1.0}},
    ... }
    >>> labels = {"q1": {"b": 1}, "q2": {"c": 1}}
    >>> res = rankset.evaluate(runs, labels, ["rr"])
    >>> out = compare(res, "base", tests=["randomization"], n_resamples=1000)
    >>> out.select("system", "metric", "test", "delta", "p", "wins", "ties", "losses")
    shape: (1, 8)
    ┌────────┬────────┬───────────────┬───────┬─────┬──────┬──────┬────────┐
    │ system ┆ metric ┆ test          ┆ delta ┆ p   ┆ wins ┆ ties ┆ losses │
    │ ---    ┆ ---    ┆ ---           ┆ ---   ┆ --- ┆ ---  ┆ ---  ┆ ---    │
    │ str    ┆ str    ┆ str           ┆ f64   ┆ f64 ┆ u32  ┆ u32  ┆ u32    │
    ╞════════╪════════╪═══════════════╪═══════╪═════╪══════╪══════╪════════╡
    │ new    ┆ rr     ┆ randomization ┆ 0.25  ┆ 1.0 ┆ 1    ┆ 1    ┆ 0      │
    └────────┴────────┴───────────────┴───────┴─────┴──────┴──────┴────────┘
    """
    per_query, known_metrics = per_query_frame(result)
    metric_names = select_metrics(metrics, known_metrics)
    test_names = check_tests(_default_tests() if tests is None else tests)
    check_options(correction, alpha, seed, n_resamples, confidence)
    by_columns = check_by(by)
    family = [test for test in test_names if test in FAMILY_TESTS]
    if family and by_columns:
        msg = (
            f"The family-wise tests ({', '.join(family)}) compare every system at once over "
            "all queries; they cannot run within 'by' slices. Drop 'by', or ask for the "
            "paired tests."
        )
        raise ParameterError(msg)
    if any(test in ("t", "wilcoxon", *FAMILY_TESTS) for test in test_names):
        try:
            require_scipy()
        except MissingDependencyError as error:
            # A test that needs scipy was asked for; the randomization test needs nothing.
            msg = (
                f"{str(error).rstrip('.')}. Or ask for the paired randomization test only, "
                "which needs nothing more: tests=['randomization'] (CLI --test randomization)."
            )
            raise MissingDependencyError(msg) from None

    # In the order given: an EvaluationResult keeps its inputs' order, a frame its own.
    systems = [str(s) for s in per_query["system"].unique(maintain_order=True).to_list()]
    check_baseline(baseline, systems)
    others = [system for system in systems if system != baseline]
    slices = query_slices(per_query, by_columns, metadata)
    greater = {name: higher_is_better(name) for name in metric_names}
    order = {name: i for i, name in enumerate(metric_names)}

    frame = tidy_values(per_query, metric_names)
    sort_keys = [SYSTEM_ORDER, METRIC_ORDER, *by_columns]
    ranks = {system: position for position, system in enumerate(systems)}
    per_test = []
    paired = [test for test in test_names if test not in FAMILY_TESTS]
    if paired:
        per_test.append(
            _paired_rows(
                frame, [baseline], systems, slices, by_columns, ranks, order, greater, paired,
                test_names, correction, alpha=alpha, seed=seed, n_resamples=n_resamples,
                confidence=confidence, progress=progress,
            ).drop("baseline", BASELINE_ORDER)
        )  # fmt: skip
    if family:
        rows = family_rows(
            frame, systems, [(system, baseline) for system in others], metric_names, family,
            greater=greater, alpha=alpha, seed=seed, n_resamples=n_resamples,
            confidence=confidence,
        )  # fmt: skip
        per_test.append(
            rows.drop("baseline").with_columns(
                pl.col("system").replace_strict(ranks, return_dtype=pl.Int64).alias(SYSTEM_ORDER),
                pl.col("metric").replace_strict(order, return_dtype=pl.Int64).alias(METRIC_ORDER),
                pl.col("test")
                .replace_strict(
                    {test: i for i, test in enumerate(test_names)}, return_dtype=pl.Int64
                )
                .alias(_TEST_ORDER),
            )
        )
    columns = ["system", "metric", *by_columns]
    columns += [name for name in COMPARE_COLUMNS if name not in ("system", "metric")]
    return (
        pl.concat(
            [piece.select(*columns, SYSTEM_ORDER, METRIC_ORDER, _TEST_ORDER) for piece in per_test]
        )
        .sort([*sort_keys, _TEST_ORDER], nulls_last=True)
        .select(columns)
    )


def compare_each(
    result: EvaluationResult | pl.DataFrame | pl.LazyFrame,
    baselines: Sequence[str] | None = None,
    *,
    metrics: Sequence[str] | None = None,
    tests: Sequence[Test] = ("randomization",),
    correction: Correction | None = "holm",
    alpha: float = 0.05,
    seed: int = 0,
    n_resamples: int = 10_000,
    confidence: float = 0.95,
    progress: Progress | None = None,
    n_bootstrap: int | None = None,
) -> pl.DataFrame:
    """Compare every system with each baseline in turn, in one resampling pass.

    The rows of one baseline are :func:`compare`'s for that baseline to the last bit (the
    same draws, the correction over that baseline's rows). Paired tests only, no ``by``.

    Parameters
    ----------
    baselines
        The baselines, in order (default: every system, in the result's order).
    result, metrics, tests, correction, alpha, seed, n_resamples, confidence, progress
        As for :func:`compare` (``tests``: the paired ones; randomization by default).
    n_bootstrap
        Bootstrap resamples of the intervals of ``delta`` (default ``n_resamples``).

    Returns
    -------
    polars.DataFrame
        :func:`compare`'s columns with ``baseline`` after ``system``, by baseline.

    Examples
    --------
    >>> import rankset
    >>> runs = {
    ...     "a": {"q1": {"x": 2.0, "y": 1.0}, "q2": {"z": 2.0, "w": 1.0}},
    ...     "b": {"q1": {"y": 2.0, "x": 1.0}, "q2": {"z": 2.0, "w": 1.0}},
    ... }
    >>> res = rankset.evaluate(runs, {"q1": {"y": 1}, "q2": {"z": 1}}, ["rr"])
    >>> compare_each(res, n_resamples=1000).select("system", "baseline", "delta").rows()
    [('b', 'a', 0.25), ('a', 'b', -0.25)]
    """
    per_query, known_metrics = per_query_frame(result)
    metric_names = select_metrics(metrics, known_metrics)
    test_names = check_tests(tests)
    family = [test for test in test_names if test in FAMILY_TESTS]
    if family:
        msg = f"compare_each runs the paired tests only; got {', '.join(family)}: use compare."
        raise ParameterError(msg)
    check_options(correction, alpha, seed, n_resamples, confidence)
    systems = [str(s) for s in per_query["system"].unique(maintain_order=True).to_list()]
    chosen = systems if baselines is None else [str(name) for name in baselines]
    for baseline in chosen:
        check_baseline(baseline, systems)
    columns = ["system", "baseline", "metric"]
    columns += [name for name in COMPARE_COLUMNS if name not in ("system", "metric")]
    rows = _paired_rows(
        tidy_values(per_query, metric_names), chosen, systems, None, [],
        {system: position for position, system in enumerate(systems)},
        {name: i for i, name in enumerate(metric_names)},
        {name: higher_is_better(name) for name in metric_names},
        test_names, test_names, correction, alpha=alpha, seed=seed,
        n_resamples=n_resamples, confidence=confidence, progress=progress,
        n_bootstrap=n_bootstrap,
    )  # fmt: skip
    return rows.sort(BASELINE_ORDER, SYSTEM_ORDER, METRIC_ORDER, _TEST_ORDER).select(columns)


def _paired_rows(
    frame: pl.DataFrame,
    baselines: list[str],
    systems: list[str],
    slices: pl.DataFrame | None,
    by_columns: list[str],
    ranks: dict[str, int],
    order: dict[str, int],
    greater: dict[str, bool],
    tests: list[Test],
    all_tests: list[Test],
    correction: Correction | None,
    *,
    alpha: float,
    seed: int,
    n_resamples: int,
    confidence: float,
    progress: Progress | None,
    n_bootstrap: int | None = None,
) -> pl.DataFrame:
    """Return the rows of the paired tests of every system against each baseline.

    Each test's p-values are corrected over the rows of one baseline (a family). The
    comparisons share one resampling pass: those over the same number of queries share
    the draws, so a baseline's rows do not depend on the other baselines.
    """
    from rankset import stats

    # Integer codes for the systems (their rank), metrics (their order) and queries (in
    # query_id order), so that the pairs of 99 systems x 10,000 queries x 10 metrics
    # (9.9 million rows) are joined, grouped and sorted on integers instead of strings.
    coded, queries = coded_values(frame, ranks, order)
    n_queries = max(1, queries.len())
    cells = n_queries * max(1, len(order))
    pairs = pl.concat(
        [
            pair_with_baseline(
                coded, ranks[baseline], [ranks[s] for s in systems if s != baseline], cells
            ).with_columns(pl.lit(number, dtype=pl.UInt32).alias(BASELINE_ORDER))
            for number, baseline in enumerate(baselines)
        ],
        how="vertical_relaxed",
    )
    del coded
    row = pl.col("_row")
    pairs = pairs.with_columns(
        (row // cells).cast(pl.UInt32).alias(SYSTEM_ORDER),
        (row % cells // n_queries).cast(pl.UInt32).alias(METRIC_ORDER),
        pl.col("value").is_not_null().and_(pl.col(BASE).is_not_null()).alias("_aligned"),
    )
    sort_keys = [BASELINE_ORDER, SYSTEM_ORDER, METRIC_ORDER, *by_columns]
    # Sorted once by comparison, then query: each comparison's means add its values in
    # query order (whatever the order of the input rows), and its aligned rows are
    # contiguous for the tests. _row is in (system, metric, query) order.
    if slices is not None:
        codes = queries.to_frame().with_row_index("_query")
        slices = slices.join(codes, on="query_id", how="inner").drop("query_id")
        pairs = pairs.with_columns((row % n_queries).cast(pl.UInt32).alias("_query")).join(
            slices, on="_query", how="left"
        )
        pairs = pairs.sort([*sort_keys, "_query"], nulls_last=True)
    else:
        pairs = pairs.sort(BASELINE_ORDER, "_row")
    names = {
        "baseline": dict(enumerate(baselines)),
        "system": {rank: system for system, rank in ranks.items()},
        "metric": {position: name for name, position in order.items()},
    }
    rows = summarise_pairs(pairs, sort_keys, greater, order).with_columns(
        pl.col(code).cast(pl.Int64) for code in (BASELINE_ORDER, SYSTEM_ORDER, METRIC_ORDER)
    )
    rows = rows.with_columns(
        pl.col(code).replace_strict(names[name], return_dtype=pl.String).alias(name)
        for name, code in (
            ("baseline", BASELINE_ORDER), ("system", SYSTEM_ORDER), ("metric", METRIC_ORDER)
        )
    )  # fmt: skip
    aligned = pairs.filter(pl.col("_aligned")).select("value", pl.col(BASE).alias("baseline"))
    del pairs
    p_values, intervals = run_paired_tests(
        aligned,
        rows["n_queries"].to_numpy(),
        tests,
        seed=seed,
        n_resamples=n_resamples,
        confidence=confidence,
        progress=progress,
        mirror=len(baselines) > 1,
        n_bootstrap=n_bootstrap,
    )
    rows = rows.with_columns(
        pl.Series("ci_low", intervals[:, 0], dtype=pl.Float64, nan_to_null=True),
        pl.Series("ci_high", intervals[:, 1], dtype=pl.Float64, nan_to_null=True),
    )
    family = rows[BASELINE_ORDER].to_numpy()
    if "randomization" in tests:
        warn_unreachable_significance(rows.height // len(baselines), n_resamples, alpha, correction)
    per_test = []
    for test in tests:
        p = p_values[test]
        adjusted = p.copy()
        for number in range(len(baselines)):
            members = family == number
            adjusted[members] = stats.adjust_pvalues(p[members], correction)
        per_test.append(
            rows.with_columns(
                pl.lit(test, dtype=pl.String).alias("test"),
                pl.lit(all_tests.index(test), dtype=pl.Int64).alias(_TEST_ORDER),
                pl.Series("p", p, dtype=pl.Float64, nan_to_null=True),
                pl.Series("p_adj", adjusted, dtype=pl.Float64, nan_to_null=True),
            )
        )
    return pl.concat(per_test, how="vertical").with_columns(reject=pl.col("p_adj") < alpha)


# --- inputs ------------------------------------------------------------------------------


def _default_tests() -> Sequence[Test]:
    """Return the paired tests, or the randomization test alone (warned) without scipy."""
    if importlib.util.find_spec("scipy") is not None:
        return TESTS
    warn_user(
        "compare runs the paired randomization test only: the t and Wilcoxon tests need "
        'scipy (pip install "rankset[stats]"). Pass tests=["randomization"] to silence '
        "this.",
        RanksetWarning,
    )
    return ("randomization",)


def check_tests(tests: Sequence[str]) -> list[Test]:
    """Return the distinct tests asked for, in order, each one known."""
    if isinstance(tests, str):
        tests = [tests]
    chosen: list[Test] = []
    for test in tests:
        if test not in ALL_TESTS:
            names = ", ".join(map(repr, ALL_TESTS))
            msg = f"The 'tests' parameter must hold names among {names}. Got {test!r} instead."
            raise ParameterError(msg + did_you_mean(str(test), list(ALL_TESTS)))
        if test not in chosen:
            chosen.append(test)
    if not chosen:
        msg = "The 'tests' parameter must name at least one test. Got [] instead."
        raise ParameterError(msg)
    return chosen


# --- alignment and per-comparison figures ------------------------------------------------


def paired_outcome(value: pl.Expr, baseline: pl.Expr, higher_wins: pl.Expr | bool) -> pl.Expr:
    """Return ``"win"``, ``"tie"`` or ``"loss"`` of ``value`` against ``baseline``.

    The rule of :func:`compare`'s ``wins``/``ties``/``losses``: a tie is exactly equal
    values; otherwise the metric's direction decides (for ``harm@k`` lower wins).

    Examples
    --------
    >>> frame = pl.DataFrame({"v": [0.5, 0.2, 0.3], "b": [0.3, 0.2, 0.4]})
    >>> frame.select(paired_outcome(pl.col("v"), pl.col("b"), True))["outcome"].to_list()
    ['win', 'tie', 'loss']
    """
    higher = pl.lit(higher_wins) if isinstance(higher_wins, bool) else higher_wins
    better = pl.when(higher).then(value > baseline).otherwise(value < baseline)
    return (
        pl.when(value == baseline)
        .then(pl.lit("tie"))
        .when(better)
        .then(pl.lit("win"))
        .otherwise(pl.lit("loss"))
        .alias("outcome")
    )
