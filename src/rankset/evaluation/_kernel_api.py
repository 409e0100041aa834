"""The kernel for any engine: plan once, measure buckets or tables anywhere, finish.

For engines other than Dask (Ray, Spark, a job queue): :func:`plan_evaluation` makes a
picklable plan, :func:`measure_bucket` or :func:`measure_tables` measures whole queries
wherever it runs, and :func:`finish` merges what they returned into the result
:func:`rankset.evaluate` would give, bit for bit.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterable, Mapping
from typing import Any, cast

import polars as pl

from rankset import io as rio
from rankset._typing import IntoLabels, IntoRun, Source
from rankset._validation import check_resampling
from rankset.errors import ParameterError
from rankset.evaluation._kernel import PartialResult, measure_queries, merge_partial_results
from rankset.evaluation._kernel import finish as finish_measured
from rankset.evaluation._options import DEFAULT_METRICS, EvaluateOptions
from rankset.evaluation._plan import EvaluationPlan, plan_evaluation_inputs
from rankset.evaluation._prepared import result_of
from rankset.evaluation._rag_inputs import answer_positions, answer_rows, pool_tier_counts
from rankset.evaluation._result import EvaluationResult
from rankset.evaluation._runs import RunPart, Runs
from rankset.measures import Metric, parse_metrics
from rankset.schema import normalize_labels

__all__ = ["finish", "measure_bucket", "measure_tables", "plan_evaluation"]


def plan_evaluation(
    runs: IntoRun | Mapping[str, IntoRun],
    labels: IntoLabels | None = None,
    metrics: str | Metric | Iterable[str | Metric] | None = None,
    **options: Any,
) -> EvaluationPlan:
    """Plan an evaluation for another engine to run: an opaque, picklable plan.

    Takes :func:`rankset.evaluate`'s arguments (not ``engine="dask"``). Inputs are read
    lazily: Parquet files are only opened by :func:`measure_bucket`, wherever it runs.
    Give ``buckets=N`` to measure by bucket; send the plan to the workers once.

    Examples
    --------
    >>> from rankset.evaluation.cluster import finish, measure_bucket, plan_evaluation
    >>> run = {"q1": {"a": 2.0, "b": 1.0}, "q2": {"c": 1.0}, "q3": {"d": 1.0}}
    >>> labels = {"q1": {"b": 1}, "q2": {"c": 1}, "q3": {"e": 1}}
    >>> plan = plan_evaluation(run, labels, ["rr"], buckets=2)
    >>> parts = [measure_bucket(plan, bucket) for bucket in range(2)]  # e.g. on workers
    >>> finish(plan, parts, confidence=None).summary["mean"].item()
    0.5
    """
    settled = EvaluateOptions.from_kwargs(options, "plan_evaluation")
    if settled.engine == "dask" or settled.client is not None:
        msg = "plan_evaluation() plans for another engine: leave engine='dask' and client out."
        raise ParameterError(msg)
    return plan_evaluation_inputs(runs, labels, parse_metrics(metrics or DEFAULT_METRICS), settled)


def measure_bucket(plan: EvaluationPlan, bucket: int) -> PartialResult:
    """Measure the queries of one bucket of a plan made with ``buckets=N``.

    The task reads its own rows (a dataset's bucket folder, or the Parquet files
    filtered by :func:`rankset.evaluation.bucket_of`) and returns small frames.
    """
    buckets = plan.buckets
    if buckets is None:
        msg = "measure_bucket() needs a plan made with buckets=N (plan_evaluation)."
        raise ParameterError(msg)
    if not isinstance(bucket, int) or not 0 <= bucket < buckets:
        msg = f"The bucket must be an int in 0..{buckets - 1}; got {bucket!r}."
        raise ParameterError(msg)
    return measure_queries(plan, (bucket, buckets))


def measure_tables(
    plan: EvaluationPlan,
    runs: Source,
    labels: Source,
    *,
    pool: Source | Mapping[str, Source] | None = None,
    answers: str | os.PathLike[str] | pl.DataFrame | pl.LazyFrame | Mapping[str, Any] | None = None,
) -> PartialResult:
    """Measure whole queries handed over as tables (Arrow, Polars or pandas).

    For engines that do the shuffle themselves (Spark's ``cogroup(...).applyInArrow``,
    Ray Data's ``groupby(...).map_groups``): ``runs`` holds every run row of some
    queries (``system, query_id, doc_id`` and ``score`` and/or ``rank``), ``labels`` all
    their labels, ``pool`` and ``answers`` their pool rows and answers when the plan
    has a pool or containment metrics. A query must not be split between calls.

    Examples
    --------
    >>> import pyarrow as pa
    >>> from rankset.evaluation.cluster import finish, measure_tables, plan_evaluation
    >>> plan = plan_evaluation({"q1": {"a": 1.0}}, {"q1": {"a": 1}}, ["rr"])
    >>> run = pa.table({"system": ["s", "s"], "query_id": ["q1", "q1"],
    ...                 "doc_id": ["a", "b"], "score": [1.0, 2.0]})
    >>> labels = pa.table({"query_id": ["q1"], "doc_id": ["a"], "grade": [1]})
    >>> finish(plan, [measure_tables(plan, run, labels)], confidence=None).wide()
    shape: (1, 3)
    ┌────────┬──────────┬─────┐
    │ system ┆ query_id ┆ rr  │
    │ ---    ┆ ---      ┆ --- │
    │ str    ┆ str      ┆ f64 │
    ╞════════╪══════════╪═════╡
    │ s      ┆ q1       ┆ 0.5 │
    └────────┴──────────┴─────┘
    """
    run = rio.scan_run(runs)
    unnamed = run.select(pl.col("system").null_count()).collect().item()
    if unnamed:
        msg = (
            "measure_tables(): the runs table needs a 'system' column naming the system of "
            f"every row ({unnamed} rows have none)."
        )
        raise ParameterError(msg)
    order = plan.options.order
    scored = [part.has_scores for part in plan.runs.inputs]
    if order == "auto" and len(set(scored)) > 1:
        msg = (
            "measure_tables(): the plan mixes runs with and without scores; plan it with "
            "order='score' or order='rank'."
        )
        raise ParameterError(msg)
    has_scores = order != "rank" and (scored[0] if order == "auto" else True)
    tables = Runs(
        inputs=[RunPart(run, "<runs table>", has_scores, None)],
        order=order,
        duplicates=plan.runs.duplicates,
        score_precision=plan.runs.score_precision,
    )
    if plan.options.ignore_identical_ids:
        tables = tables.drop_identical_ids()
    label_frame = normalize_labels(rio.scan_labels(labels), source="<labels table>")
    pools = plan.pools
    if (pools is None) != (pool is None):
        need = "has no pool: leave pool out" if pools is None else "has a pool: pass its rows"
        raise ParameterError(f"measure_tables(): the plan {need}.")
    if pools is not None:
        pool_source = dict(cast(Mapping[str, Source], pool)) if pools.by_system else pool
        pools = pool_tier_counts(
            plan.features,
            pool_source,
            label_frame,
            order=order,
            depth=plan.options.pool_depth,
            score_precision=plan.options.score_precision,
        )
    answer_frame = positions = None
    if plan.answers is not None:
        if answers is None:
            msg = "measure_tables(): the plan has containment metrics: pass answers."
            raise ParameterError(msg)
        answer_frame = answer_rows(rio.read_answers(answers))
        positions = answer_positions(plan.features, tables, answer_frame)
    part_plan = dataclasses.replace(
        plan,
        runs=tables,
        labels=label_frame,
        pools=pools,
        answers=answer_frame,
        answer_positions=positions,
        dataset_labels=None,
    )
    return measure_queries(part_plan, None)


def finish(
    plan: EvaluationPlan,
    parts: Iterable[PartialResult],
    *,
    confidence: float | None = 0.95,
    n_resamples: int = 1000,
    seed: int = 0,
) -> EvaluationResult:
    """Merge the measured partitions and finish as :func:`rankset.evaluate` does.

    Raises
    ------
    ClusterError
        A bucket is missing or repeated, or a query was split between partitions.
    """
    check_resampling(confidence, n_resamples, seed)
    collected = finish_measured(plan, merge_partial_results(list(parts)))
    return result_of(plan, collected, confidence=confidence, n_resamples=n_resamples, seed=seed)
