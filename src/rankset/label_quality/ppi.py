"""Prediction-powered means: a judge's labels on many queries, corrected by a few human ones.

When an LLM judge labels every query and people label only some, the metric's mean
under the judge's labels is biased by the judge's errors, and the mean under the human
labels rests on few queries. Prediction-powered inference (Angelopoulos, Bates, Fannjiang,
Jordan and Zrnic, Science 2023; used for RAG evaluation by ARES) combines them: with
``f`` a query's metric under the judge's labels and ``y`` under the human labels,

    mean_pp = mean of f over the N queries the humans did not label
              - mean of (f - y) over the n queries they did

and its interval is ``mean_pp ± z * sqrt(var(f) / N + var(f - y) / n)`` (sample
variances, ``z`` the normal quantile). The two sets of queries are disjoint, as the
estimator assumes; both must hold two queries or more.
"""

from __future__ import annotations

from collections.abc import Sequence
from statistics import NormalDist
from typing import TYPE_CHECKING, Any

import polars as pl

from rankset._validation import check_fraction, did_you_mean
from rankset.comparison import RELATIVE_DELTA
from rankset.comparison.pairwise import COMPARE_COLUMNS
from rankset.errors import ParameterError, SchemaError
from rankset.evaluation import EvaluateOptions, evaluate_with

if TYPE_CHECKING:
    from rankset._typing import Correction

__all__ = ["ppi_compare", "ppi_means"]

_KEYS = ["system", "metric", "query_id"]


def ppi_means(
    runs: Any,
    judge_labels: Any,
    human_labels: Any,
    metrics: str | list[str] = "ndcg@10",
    *,
    confidence: float = 0.95,
    **evaluate_options: Any,
) -> pl.DataFrame:
    """Estimate each system's mean metric from judge labels corrected by human labels.

    Parameters
    ----------
    runs
        The runs, as :func:`rankset.evaluate` takes them.
    judge_labels
        Labels of every query (an LLM judge's, say).
    human_labels
        Labels of a subset of the queries: the reference.
    metrics
        One metric name or several.
    confidence
        The level of the normal interval, in (0, 1).
    **evaluate_options
        Passed to :func:`rankset.evaluate` (``scale=``, ``relevance_level=``...).

    Returns
    -------
    polars.DataFrame
        Per system and metric: ``n_judge_only`` (N) and ``n_human`` (n) queries, the
        plain means ``judge_mean`` (over the N) and ``human_mean`` (over the n), the
        ``bias`` (mean of f - y over the n), ``mean`` (the prediction-powered estimate),
        ``ci_low`` and ``ci_high``.

    Raises
    ------
    SchemaError
        Fewer than two queries are labelled by the humans, or by the judge alone.

    Examples
    --------
    >>> run = {f"q{i}": {"a": 2.0, "b": 1.0} for i in range(6)}
    >>> judge = {f"q{i}": {"a": 1} for i in range(6)}  # the judge says a is relevant
    >>> human = {"q0": {"a": 1}, "q1": {"b": 1}}  # people agree on q0, not on q1
    >>> row = ppi_means(run, judge, human, "rr").row(0, named=True)
    >>> row["judge_mean"], row["bias"], row["mean"]
    (1.0, 0.25, 0.75)
    """
    if not 0.0 < confidence < 1.0:
        msg = f"The 'confidence' parameter must lie in (0, 1). Got {confidence!r} instead."
        raise ParameterError(msg)
    names = [metrics] if isinstance(metrics, str) else list(metrics)
    options = EvaluateOptions.from_kwargs(evaluate_options, "ppi_means")
    judged, f, y = _per_query_values(runs, judge_labels, human_labels, names, options)
    order = judged.select("system", "metric").unique(maintain_order=True)
    table = _estimate(order, f, y, ["system", "metric"], "ppi_means")
    half_width = NormalDist().inv_cdf(0.5 + confidence / 2.0) * pl.col("std_error")
    return table.select(
        "system",
        "metric",
        "n_judge_only",
        "n_human",
        "judge_mean",
        "human_mean",
        "bias",
        "mean",
        (pl.col("mean") - half_width).alias("ci_low"),
        (pl.col("mean") + half_width).alias("ci_high"),
    )


def ppi_compare(
    runs: Any,
    judge_labels: Any,
    human_labels: Any,
    baseline: str,
    metrics: str | list[str] = "ndcg@10",
    *,
    correction: Correction | None = "holm",
    alpha: float = 0.05,
    confidence: float = 0.95,
    **evaluate_options: Any,
) -> pl.DataFrame:
    """Compare every system with a baseline by prediction-powered differences.

    Each system's per-query difference from the baseline is estimated as in
    :func:`ppi_means`: the mean difference under the judge's labels over the queries
    the humans did not label, minus the judge's average error on that difference over
    the queries they did. ``p`` is the two-sided normal test of a zero difference.

    Parameters
    ----------
    runs, judge_labels, human_labels
        As for :func:`ppi_means`.
    baseline
        The system the others are compared with.
    metrics
        One metric name or several.
    correction
        Multiple-testing correction over every row: ``"holm"``, ``"bonferroni"``,
        ``"bh"`` or ``None``, as in :func:`rankset.compare`.
    alpha
        Level at which ``reject`` is true (``p_adj < alpha``).
    confidence
        The level of the normal interval of ``delta``.
    **evaluate_options
        Passed to :func:`rankset.evaluate` (``scale=``, ``relevance_level=``...).

    Returns
    -------
    polars.DataFrame
        :data:`rankset.comparison.pairwise.COMPARE_COLUMNS`, one row per (system, metric), with
        ``test = "ppi"``: ``n_queries`` (judge-only plus human-labelled queries that both
        the system and the baseline have), ``n_dropped`` (queries one side lacks),
        ``mean`` and ``baseline_mean`` (prediction-powered means over those queries),
        ``delta`` (their difference), ``ci_low``, ``ci_high``, ``p``, ``p_adj`` and
        ``reject``. ``wins``, ``ties`` and ``losses`` are null: the estimator counts no
        per-query outcome.

    Raises
    ------
    ParameterError
        An unknown baseline, or an invalid level.
    SchemaError
        Fewer than two human-labelled or judge-only queries for a comparison.

    Examples
    --------
    On every query the judge finds ``a`` relevant, which system ``new`` ranks first;
    people agree on two queries, and on two others found only ``b``, which ``base`` ranks
    first:

    >>> queries = [f"q{i}" for i in range(8)]
    >>> runs = {
    ...     "base": {q: {"b": 2.0, "a": 1.0} for q in queries},
    ...     "new": {q: {"a": 2.0, "b": 1.0} for q in queries},
    ... }
    >>> judge = {q: {"a": 1} for q in queries}
    >>> human = {"q0": {"a": 1}, "q1": {"a": 1}, "q2": {"b": 1}, "q3": {"b": 1}}
    >>> out = ppi_compare(runs, judge, human, "base", "rr")
    >>> out.select("system", "test", "n_queries", "mean", "baseline_mean", "delta").row(0)
    ('new', 'ppi', 8, 0.75, 0.75, 0.0)
    """
    check_fraction("alpha", alpha)
    if not 0.0 < confidence < 1.0:
        msg = f"The 'confidence' parameter must lie in (0, 1). Got {confidence!r} instead."
        raise ParameterError(msg)
    from rankset import stats

    if correction is not None and correction not in stats.CORRECTIONS:
        allowed = ", ".join(repr(c) for c in (*stats.CORRECTIONS, None))
        msg = f"The 'correction' parameter must be one of {allowed}. Got {correction!r} instead."
        raise ParameterError(msg)
    names = [metrics] if isinstance(metrics, str) else list(metrics)
    options = EvaluateOptions.from_kwargs(evaluate_options, "ppi_compare")
    judged, f, y = _per_query_values(runs, judge_labels, human_labels, names, options)
    systems = [str(s) for s in judged["system"].unique(maintain_order=True).to_list()]
    if baseline not in systems:
        msg = (
            f"The 'baseline' parameter must be one of the systems: "
            f"{', '.join(map(repr, systems))}. Got {baseline!r} instead."
        )
        raise ParameterError(msg + did_you_mean(str(baseline), systems))
    order = judged.filter(pl.col("system") != baseline).select("system", "metric")
    order = order.unique(maintain_order=True)
    f_pairs = _with_baseline(f, "f", baseline)
    y_pairs = _with_baseline(y, "y", baseline)
    # Only queries both sides have: the same queries for the system, the baseline and
    # their difference, so that delta = mean - baseline_mean exactly.
    dropped = _dropped(f, baseline, order)
    keys = ["system", "metric"]
    estimates = {
        column: _estimate(
            order,
            f_pairs.select(*_KEYS, pl.col(f"f_{column}").alias("f")),
            y_pairs.select(*_KEYS, pl.col(f"y_{column}").alias("y")),
            keys,
            "ppi_compare",
        )
        for column in ("system", "baseline", "delta")
    }
    delta = estimates["delta"]
    z = NormalDist().inv_cdf(0.5 + confidence / 2.0)
    p = delta.select(
        pl.when(pl.col("std_error") > 0)
        .then(pl.col("mean").abs() / pl.col("std_error"))
        .otherwise(None)
        .alias("z")
    )["z"].to_list()
    normal = NormalDist()
    p_values = [None if value is None else 2.0 * (1.0 - normal.cdf(value)) for value in p]
    p_series = pl.Series("p", p_values, dtype=pl.Float64)
    adjusted = stats.adjust_pvalues(p_series.fill_null(float("nan")).to_numpy(), correction)
    none = pl.lit(None, dtype=pl.UInt32)
    return (
        delta.select(
            "system",
            "metric",
            pl.lit("ppi").alias("test"),
            (pl.col("n_judge_only") + pl.col("n_human")).cast(pl.UInt32).alias("n_queries"),
            pl.Series("mean", estimates["system"]["mean"]),
            pl.Series("baseline_mean", estimates["baseline"]["mean"]),
            pl.col("mean").alias("delta"),
            (pl.col("mean") - z * pl.col("std_error")).alias("ci_low"),
            (pl.col("mean") + z * pl.col("std_error")).alias("ci_high"),
            p_series,
            pl.Series("p_adj", adjusted, dtype=pl.Float64, nan_to_null=True),
            none.alias("wins"),
            none.alias("ties"),
            none.alias("losses"),
        )
        .join(dropped, on=keys, how="left", maintain_order="left")
        .with_columns(
            pl.col("n_dropped").fill_null(0).cast(pl.UInt32),
            reject=pl.col("p_adj") < alpha,
            relative_delta=RELATIVE_DELTA,
        )
        .select(COMPARE_COLUMNS)
    )


def _per_query_values(
    runs: Any,
    judge_labels: Any,
    human_labels: Any,
    names: Sequence[str],
    options: EvaluateOptions,
) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """Return the judge's per-query frame, its values ``f`` and the human values ``y``."""
    judged = evaluate_with(runs, judge_labels, names, options, confidence=None).per_query
    human = evaluate_with(runs, human_labels, names, options, confidence=None).per_query
    f = judged.select(*_KEYS, pl.col("value").alias("f")).filter(pl.col("f").is_not_null())
    y = human.select(*_KEYS, pl.col("value").alias("y")).filter(pl.col("y").is_not_null())
    return judged, f, y


def _with_baseline(frame: pl.DataFrame, column: str, baseline: str) -> pl.DataFrame:
    """``{column}_system``, ``{column}_baseline`` and their ``{column}_delta`` per query."""
    base = frame.filter(pl.col("system") == baseline).select(
        "metric", "query_id", pl.col(column).alias(f"{column}_baseline")
    )
    return (
        frame.filter(pl.col("system") != baseline)
        .rename({column: f"{column}_system"})
        .join(base, on=["metric", "query_id"], how="inner")
        .with_columns(
            (pl.col(f"{column}_system") - pl.col(f"{column}_baseline")).alias(f"{column}_delta")
        )
    )


def _dropped(f: pl.DataFrame, baseline: str, order: pl.DataFrame) -> pl.DataFrame:
    """Per (system, metric): queries that the system or the baseline lacks."""
    base = f.filter(pl.col("system") == baseline).select("metric", "query_id")
    both = order.join(base, on="metric")
    system = f.filter(pl.col("system") != baseline).select(*_KEYS)
    one_side = pl.concat(
        [both.join(system, on=_KEYS, how="anti"), system.join(both, on=_KEYS, how="anti")]
    )
    return one_side.group_by("system", "metric").agg(n_dropped=pl.len())


def _estimate(
    order: pl.DataFrame, f: pl.DataFrame, y: pl.DataFrame, keys: list[str], caller: str
) -> pl.DataFrame:
    """Apply the estimator per group of ``keys``: counts, means, bias, mean, std_error."""
    paired = y.join(f, on=_KEYS, how="inner")
    rest = f.join(y, on=_KEYS, how="anti")
    unlabeled = rest.group_by(keys).agg(
        n_judge_only=pl.len(), judge_mean=pl.col("f").mean(), judge_var=pl.col("f").var()
    )
    labeled = paired.group_by(keys).agg(
        n_human=pl.len(),
        human_mean=pl.col("y").mean(),
        bias=(pl.col("f") - pl.col("y")).mean(),
        bias_var=(pl.col("f") - pl.col("y")).var(),
    )
    table = (
        order.join(unlabeled, on=keys, how="left", maintain_order="left")
        .join(labeled, on=keys, how="left", maintain_order="left")
        .with_columns(pl.col("n_judge_only", "n_human").fill_null(0).cast(pl.Int64))
    )
    short = table.filter((pl.col("n_judge_only") < 2) | (pl.col("n_human") < 2))
    if short.height:
        row = short.row(0, named=True)
        msg = (
            f"{caller}() needs two queries or more labelled by the humans and two or more "
            f"labelled by the judge alone; system {row['system']!r}, {row['metric']}: "
            f"{row['n_human']} human-labelled and {row['n_judge_only']} judge-only queries."
        )
        raise SchemaError(msg)
    variance = pl.col("judge_var") / pl.col("n_judge_only") + pl.col("bias_var") / pl.col("n_human")
    return table.with_columns(mean=pl.col("judge_mean") - pl.col("bias"), std_error=variance.sqrt())
