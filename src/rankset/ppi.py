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

from statistics import NormalDist
from typing import Any

import polars as pl

from rankset.errors import ParameterError, SchemaError
from rankset.evaluation import EvaluateOptions, evaluate_with

__all__ = ["ppi_means"]


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
    judged = evaluate_with(runs, judge_labels, names, options, confidence=None).per_query
    human = evaluate_with(runs, human_labels, names, options, confidence=None).per_query
    keys = ["system", "metric", "query_id"]
    f = judged.select(*keys, pl.col("value").alias("f"))
    y = human.select(*keys, pl.col("value").alias("y"))
    paired = y.join(f, on=keys, how="inner").filter(
        pl.col("f").is_not_null() & pl.col("y").is_not_null()
    )
    rest = f.join(y, on=keys, how="anti").filter(pl.col("f").is_not_null())
    order = judged.select("system", "metric").unique(maintain_order=True)
    z = NormalDist().inv_cdf(0.5 + confidence / 2.0)
    unlabeled = rest.group_by("system", "metric").agg(
        n_judge_only=pl.len(), judge_mean=pl.col("f").mean(), judge_var=pl.col("f").var()
    )
    labeled = paired.group_by("system", "metric").agg(
        n_human=pl.len(),
        human_mean=pl.col("y").mean(),
        bias=(pl.col("f") - pl.col("y")).mean(),
        bias_var=(pl.col("f") - pl.col("y")).var(),
    )
    table = (
        order.join(unlabeled, on=["system", "metric"], how="left", maintain_order="left")
        .join(labeled, on=["system", "metric"], how="left", maintain_order="left")
        .with_columns(pl.col("n_judge_only", "n_human").fill_null(0).cast(pl.Int64))
    )
    short = table.filter((pl.col("n_judge_only") < 2) | (pl.col("n_human") < 2))
    if short.height:
        row = short.row(0, named=True)
        msg = (
            f"ppi_means() needs two queries or more labelled by the humans and two or more "
            f"labelled by the judge alone; system {row['system']!r}, {row['metric']}: "
            f"{row['n_human']} human-labelled and {row['n_judge_only']} judge-only queries."
        )
        raise SchemaError(msg)
    half_width = (
        z
        * (
            pl.col("judge_var") / pl.col("n_judge_only") + pl.col("bias_var") / pl.col("n_human")
        ).sqrt()
    )
    return table.with_columns(mean=pl.col("judge_mean") - pl.col("bias")).select(
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
