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
    This module imports neither numpy nor scipy when loaded (``rankset.stats`` is
    imported by :func:`compare` when called), so the package can bind the function
    ``rankset.compare`` eagerly without making ``import rankset`` heavier.
Randomness
    One ``seed`` drives the randomization test and the bootstrap; comparisons over the
    same number of queries share the sign matrix and the bootstrap draws (one matrix
    product for all of them). The same inputs and seed give an identical frame.

Examples
--------
>>> import polars as pl
>>> from rankset.comparison import compare
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

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import polars as pl

from rankset._typing import Test, choices_of
from rankset._validation import check_fraction, check_int, did_you_mean, missing_columns_message
from rankset.errors import (
    MissingDependencyError,
    ParameterError,
    SchemaError,
    UnknownMetricError,
)
from rankset.evaluation import EvaluationResult
from rankset.measures import greater_is_better, parse_metric

if TYPE_CHECKING:
    import numpy as np

    from rankset.stats import Correction, FloatArray

__all__ = [
    "COMPARE_COLUMNS",
    "TESTS",
    "Test",
    "compare",
    "higher_is_better",
    "paired_outcome",
]

#: Paired tests :func:`compare` can run.
TESTS: tuple[Test, ...] = choices_of(Test)  # type: ignore[assignment]

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
    "ci_low",
    "ci_high",
    "p",
    "p_adj",
    "reject",
    "wins",
    "ties",
    "losses",
)

_CORRECTIONS = ("holm", "bonferroni", "bh")  # = rankset.stats.CORRECTIONS (numpy-free here)
_REQUIRED = ("system", "query_id", "metric", "value")
_BASE = "_baseline_value"
_ORDER = "_metric_order"
_SYSTEM_ORDER = "_system_order"
_TEST_ORDER = "_test_order"


def compare(
    result: EvaluationResult | pl.DataFrame | pl.LazyFrame,
    baseline: str,
    *,
    metrics: Sequence[str] | None = None,
    tests: Sequence[Test] = TESTS,
    correction: Correction | None = "holm",
    alpha: float = 0.05,
    seed: int = 0,
    n_resamples: int = 10_000,
    confidence: float = 0.95,
    by: str | Sequence[str] | None = None,
    metadata: pl.DataFrame | None = None,
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
        ``"t"`` (paired t-test) and ``"wilcoxon"`` (signed-rank test); the last two
        need scipy (``pip install "rankset[stats]"``).
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
    >>> from rankset.comparison import compare
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
    from rankset import stats

    per_query, known_metrics = _per_query(result)
    metric_names = _select_metrics(metrics, known_metrics)
    test_names = _check_tests(tests)
    _check_options(correction, alpha, seed, n_resamples, confidence)
    by_columns = _check_by(by)
    if any(test in ("t", "wilcoxon") for test in test_names):
        try:
            stats.require_scipy()
        except MissingDependencyError as error:
            # The default asks for all three tests; the randomization test needs nothing.
            msg = (
                f"{str(error).rstrip('.')}. Or ask for the paired randomization test only, "
                "which needs nothing more: tests=['randomization'] (CLI --test randomization)."
            )
            raise MissingDependencyError(msg) from None

    # In the order given: an EvaluationResult keeps its inputs' order, a frame its own.
    systems = [str(s) for s in per_query["system"].unique(maintain_order=True).to_list()]
    _check_baseline(baseline, systems)
    others = [system for system in systems if system != baseline]
    slices = _slices(per_query, by_columns, metadata)
    greater = {name: higher_is_better(name) for name in metric_names}
    order = {name: i for i, name in enumerate(metric_names)}

    frame = per_query.filter(pl.col("metric").is_in(metric_names)).select(
        pl.col("system").cast(pl.String),
        pl.col("query_id").cast(pl.String),
        pl.col("metric").cast(pl.String),
        pl.col("value").cast(pl.Float64),
    )
    pairs = _pair_with_baseline(frame, baseline, others)
    if slices is not None:
        pairs = pairs.join(slices, on="query_id", how="left")
    keys = ["system", _SYSTEM_ORDER, "metric", *by_columns]
    ranks = {system: position for position, system in enumerate(systems)}
    pairs = pairs.with_columns(
        pl.col("system").replace_strict(ranks, return_dtype=pl.Int64).alias(_SYSTEM_ORDER),
        pl.col("metric").replace_strict(order, return_dtype=pl.Int64).alias(_ORDER),
        pl.col("value").is_not_null().and_(pl.col(_BASE).is_not_null()).alias("_aligned"),
    )
    sort_keys = [_SYSTEM_ORDER, _ORDER, *by_columns]
    rows = _summarise_pairs(pairs, keys, greater).sort(sort_keys, nulls_last=True)
    aligned = (
        pairs.filter(pl.col("_aligned"))
        .sort([*sort_keys, "query_id"], nulls_last=True)
        .select("value", _BASE)
    )
    p_values, intervals = _run_tests(
        aligned,
        rows["n_queries"].to_numpy(),
        test_names,
        seed=seed,
        n_resamples=n_resamples,
        confidence=confidence,
    )
    rows = rows.with_columns(
        pl.Series("ci_low", intervals[:, 0], dtype=pl.Float64, nan_to_null=True),
        pl.Series("ci_high", intervals[:, 1], dtype=pl.Float64, nan_to_null=True),
    )
    per_test = []
    for position, test in enumerate(test_names):
        p = p_values[test]
        per_test.append(
            rows.with_columns(
                pl.lit(test, dtype=pl.String).alias("test"),
                pl.lit(position, dtype=pl.Int64).alias(_TEST_ORDER),
                pl.Series("p", p, dtype=pl.Float64, nan_to_null=True),
                pl.Series(
                    "p_adj", stats.adjust_pvalues(p, correction), dtype=pl.Float64, nan_to_null=True
                ),
            )
        )
    return (
        pl.concat(per_test, how="vertical")
        .with_columns(reject=pl.col("p_adj") < alpha)
        .sort([*sort_keys, _TEST_ORDER], nulls_last=True)
        .select(
            "system",
            "metric",
            *by_columns,
            *[name for name in COMPARE_COLUMNS if name not in ("system", "metric")],
        )
    )


# --- inputs ------------------------------------------------------------------------------


def _per_query(
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
    repeated = frame.filter(pl.struct("system", "query_id", "metric").is_duplicated())
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


def _select_metrics(metrics: Sequence[str] | None, known: list[str]) -> list[str]:
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


def _check_tests(tests: Sequence[str]) -> list[Test]:
    if isinstance(tests, str):
        tests = [tests]
    chosen: list[Test] = []
    for test in tests:
        if test not in TESTS:
            msg = (
                f"The 'tests' parameter must hold names among {', '.join(map(repr, TESTS))}. "
                f"Got {test!r} instead."
            )
            raise ParameterError(msg + did_you_mean(str(test), list(TESTS)))
        if test not in chosen:
            chosen.append(test)
    if not chosen:
        msg = "The 'tests' parameter must name at least one test. Got [] instead."
        raise ParameterError(msg)
    return chosen


def _check_options(
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


def _check_by(by: str | Sequence[str] | None) -> list[str]:
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


def _check_baseline(baseline: str, systems: list[str]) -> None:
    if baseline in systems:
        return
    msg = (
        f"The 'baseline' parameter must be one of the systems: "
        f"{', '.join(map(repr, systems))}. Got {baseline!r} instead."
    )
    raise ParameterError(msg + did_you_mean(str(baseline), systems))


def _slices(
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


# --- alignment and per-comparison figures ------------------------------------------------


def _pair_with_baseline(frame: pl.DataFrame, baseline: str, others: list[str]) -> pl.DataFrame:
    """One row per (system, metric, query) that the system or the baseline has a row for."""
    base = frame.filter(pl.col("system") == baseline).select(
        "metric", "query_id", pl.col("value").alias(_BASE)
    )
    base_per_system = pl.DataFrame({"system": others}, schema={"system": pl.String}).join(
        base, how="cross"
    )
    return frame.filter(pl.col("system") != baseline).join(
        base_per_system,
        on=["system", "metric", "query_id"],
        how="full",
        coalesce=True,
    )


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


def _summarise_pairs(
    pairs: pl.DataFrame, keys: list[str], greater: dict[str, bool]
) -> pl.DataFrame:
    aligned = pl.col("_aligned")
    value, base = pl.col("value"), pl.col(_BASE)
    higher_wins = pl.col("metric").replace_strict(greater, return_dtype=pl.Boolean)
    outcome = paired_outcome(value, base, higher_wins)
    return (
        pairs.group_by([*keys, _ORDER])
        .agg(
            n_queries=aligned.sum().cast(pl.UInt32),
            n_dropped=(~aligned).sum().cast(pl.UInt32),
            mean=value.filter(aligned).mean(),
            baseline_mean=base.filter(aligned).mean(),
            wins=((outcome == "win") & aligned).sum().cast(pl.UInt32),
            ties=((outcome == "tie") & aligned).sum().cast(pl.UInt32),
        )
        .with_columns(
            delta=pl.col("mean") - pl.col("baseline_mean"),
            losses=(pl.col("n_queries") - pl.col("wins") - pl.col("ties")).cast(pl.UInt32),
        )
    )


def _run_tests(
    aligned: pl.DataFrame,
    sizes: np.ndarray[Any, np.dtype[Any]],
    tests: list[Test],
    *,
    seed: int,
    n_resamples: int,
    confidence: float,
) -> tuple[dict[Test, FloatArray], FloatArray]:
    """P-values per test and bootstrap intervals, one per comparison (row of ``sizes``)."""
    import numpy as np

    from rankset import stats

    values = aligned["value"].to_numpy()
    base = aligned[_BASE].to_numpy()
    bounds = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    count = len(sizes)
    p_values = {test: np.full(count, np.nan) for test in tests}
    intervals = np.full((count, 2), np.nan)
    # Comparisons over the same number of queries share the random draws: one matrix
    # product per size instead of one resampling per comparison.
    by_size: dict[int, list[int]] = {}
    for index, size in enumerate(sizes.tolist()):
        if size > 0:
            by_size.setdefault(size, []).append(index)
    for _, members in sorted(by_size.items()):
        diffs = np.column_stack(
            [values[bounds[i] : bounds[i + 1]] - base[bounds[i] : bounds[i + 1]] for i in members]
        )
        if "randomization" in tests:
            p_values["randomization"][members] = stats.paired_randomization_tests(
                diffs, n_resamples=n_resamples, seed=seed
            )
        intervals[members] = stats.paired_bootstrap_cis(
            diffs, confidence=confidence, n_resamples=n_resamples, seed=seed
        )
        for i in members:
            left, right = values[bounds[i] : bounds[i + 1]], base[bounds[i] : bounds[i + 1]]
            if "t" in tests:
                p_values["t"][i] = stats.paired_t_test(left, right)
            if "wilcoxon" in tests:
                p_values["wilcoxon"][i] = stats.wilcoxon_test(left, right)
    return p_values, intervals
