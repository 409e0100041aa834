"""Evaluate runs against labels: plan, measure with the chosen executor, make tidy.

One door: :func:`evaluate` is :func:`evaluate_with` with the options as keyword
arguments, and every caller (the command line, the pages, the analyses) comes through
:func:`evaluate_with`, which names the metrics once (:func:`metrics_of`) and takes the
prepared, one-collect path (:mod:`rankset.evaluation._prepared`) for one run held in
memory.

The executor is chosen here and only here: the whole input as one set of queries, one
bucket of queries at a time (``buckets=N``), or one task per bucket on a Dask cluster
(``engine="dask"``). Each runs the same kernel (:mod:`rankset.evaluation._kernel`),
which imports none of them.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import polars as pl

from rankset._typing import (
    DatasetChecks,
    DuplicatePolicy,
    Engine,
    IntoLabels,
    IntoRun,
    MissingPolicy,
    OrderPolicy,
    Progress,
    ScorePrecision,
)
from rankset._validation import check_resampling
from rankset.errors import InputFormatError, RanksetError
from rankset.evaluation._kernel import (
    Collected,
    PartialResult,
    finish,
    measure_queries,
    merge_partial_results,
    occupied_buckets,
)
from rankset.evaluation._options import (
    DEFAULT_K,
    DEFAULT_METRICS,
    EvaluateOptions,
    resolve_engine,
)
from rankset.evaluation._plan import EvaluationPlan, plan_evaluation_inputs
from rankset.evaluation._prepared import PreparedEvaluation, evaluate_run_queries, result_of
from rankset.evaluation._result import EvaluationResult
from rankset.evaluation._runs import TextScanRejected
from rankset.evaluation.textmatch import TextMatch
from rankset.io._shared import is_foreign_frame, looks_like_ranx, with_official_measures
from rankset.measures import Metric, expand_cutoffs, parse_metrics
from rankset.measures.scales import GradeScale

__all__ = ["evaluate", "evaluate_with", "plan_and_measure"]


def evaluate(
    runs: IntoRun | Mapping[str, IntoRun] | TextMatch,
    labels: IntoLabels | None = None,
    metrics: str | Metric | Iterable[str | Metric] = DEFAULT_METRICS,
    *,
    ks: Sequence[int] | None = None,
    k: int | None = None,
    relevance_level: float | None = None,
    missing: MissingPolicy = "skip",
    cutoffs: Mapping[str, int] | pl.DataFrame | pl.LazyFrame | None = None,
    order: OrderPolicy = "auto",
    duplicates: DuplicatePolicy = "error",
    names: Sequence[str] | None = None,
    default_k: int = DEFAULT_K,
    scale: str | Mapping[float, int] | GradeScale = "auto",
    pool: IntoRun | Mapping[str, IntoRun] | None = None,
    pool_depth: int | None = None,
    max_depth: int | None = None,
    judged_only: bool = False,
    ignore_identical_ids: bool = False,
    answers: IntoLabels | Mapping[str, Sequence[str]] | None = None,
    nuggets: Any = None,
    costs: Any = None,
    score_precision: ScorePrecision = "float64",
    dataset_checks: DatasetChecks = "error",
    engine: Engine = "auto",
    buckets: int | None = None,
    client: Any = None,
    confidence: float | None = 0.95,
    n_resamples: int = 1000,
    seed: int = 0,
    progress: Progress | None = None,
) -> EvaluationResult:
    """Score runs against labels with the named metrics.

    Parameters
    ----------
    runs
        One run or several: a path (TREC, JSON/JSONL, Parquet, CSV; ``.gz`` ok), an
        in-memory Polars/pandas/pyarrow frame, a ranx-style ``{qid: {doc: score}}`` dict,
        a list of those, or a ``{system_name: run}`` dict. Or the
        :class:`~rankset.evaluation.textmatch.TextMatch` of runs of text chunks matched to
        gold texts
        (then ``labels`` is omitted: the gold items are the labels).
    labels
        Labels (qrels) in any of the same forms; may be omitted when the runs carry their
        own labels (JSONL RAG samples with ``expected_output``).
    metrics
        Metric names in any accepted spelling (see :func:`rankset.parse_metric`);
        ``"official"`` stands for the official measures of the labels' collection, when
        the labels name one (``"irds:dl19-passage"``, ``qrels.dl19-passage.txt``; see
        :func:`rankset.io.official_measures`).
    ks
        Cutoffs to compute every metric at that has none fixed: ``["precision", "ndcg"]``
        with ``ks=[1, 5, 10, 20]`` is eight metrics (:func:`rankset.measures.expand_cutoffs`);
        :meth:`EvaluationResult.by_k` tabulates them by k.
    k
        Cutoff for ``@k`` metrics on queries without a per-query cutoff.
    relevance_level
        Grade at or above which binary metrics count a document as relevant. None (the
        default): 1, except for sample files whose ``expected_output`` maps ids to gains,
        where a map's keys are the relevant set: every positive gain is relevant
        (``{"doc-3": 0.5}`` makes doc-3 relevant; nDCG still weighs it 0.5).
    missing
        ``"skip"`` scores queries in both run and labels; ``"zero"`` scores every
        labelled query, unanswered ones as empty rankings.
    cutoffs
        Per-query cutoffs for ``@k`` metrics: ``{query_id: k}`` or a frame
        ``query_id, k``; by default taken from the samples' ``metadata.k``.
    order
        ``"auto"`` (scores when present, else ranks), ``"score"`` or ``"rank"``.
    duplicates
        ``"error"`` or ``"keep_best"`` for a document ranked twice in one query, or
        ``"in_place"``: every copy keeps its position, later copies count as non-relevant
        documents (chunks of one document: the document counts once, each chunk holds its
        slot).
    names
        System names, one per run, overriding the naming rule.
    default_k
        Cutoff used when neither ``cutoffs`` nor ``k`` gives one.
    scale
        How grades map to the tiers 5..1 of the RAG set metrics: ``"rag5"`` (grades 1..5),
        ``"trec_dl"`` (0-3), ``"binary"`` (0-1) or a ``{grade: tier}`` dict. ``"auto"``
        (the default) keeps ``rag5`` when the labels fit it, else takes the preset they
        fit (``binary``, then ``trec_dl``) with a :class:`RanksetWarning`.
    pool
        Candidate pool for ``proc@k``: by default what each system retrieved (full
        depth); a run (any form above) serves as the pool of every system, a
        ``{system_name: run}`` dict matches pools to systems by name.
    pool_depth
        Keep only the first ``pool_depth`` documents of each pool (a system's own list or
        the pool run), e.g. the depth a reranker actually reordered.
    max_depth
        Keep only the first ``max_depth`` documents of each ranking (in rankset's order:
        score, ties by doc id descending) before measuring, as trec_eval's ``-M``:
        ``num_ret`` and every measure then see the cut ranking.
    judged_only
        Drop every retrieved document without a label of grade 0 or more before
        measuring, closing the gaps, as trec_eval's ``-J`` (``judged_docs_only``) and
        ir_measures' ``judged_only=True``: bpref-like "condensed list" evaluation for
        every measure. Applied after ``max_depth``; a ranking left empty is scored as
        empty. Both options read text runs whole.
    ignore_identical_ids
        Drop every retrieved document whose id equals its query's id before anything
        else (``max_depth`` and ``judged_only`` included), as BEIR's and MTEB's
        ``ignore_identical_ids`` do for collections whose queries are documents of the
        corpus (ArguAna, Quora); the documents after one move up a rank. The rows
        dropped, and the queries they came from, are counted per system in
        :attr:`EvaluationResult.query_counts` (``n_identical_dropped``,
        ``n_queries_with_identical``); ``config`` records the option.
    answers
        Acceptable answer strings for ``containment@k``: ``{query_id: [answers]}``, a frame
        ``query_id, answer`` or a file; by default the samples' ``expected_answer``.
    nuggets
        Nugget labels for the nugget measures (``nugget_coverage@k``, ``alpha_ndcg@k``...):
        a frame or file with ``query_id, nugget_id, doc_id, support, importance``, or
        nuggetizer's assignment JSONL (:func:`rankset.io.read_nuggets`); subtopic labels
        for the intent-aware measures (``err_ia@k``, ``nrbp``...) are read with
        :func:`rankset.io.read_subtopics`. Without
        ``labels``, the labels are those the nuggets imply (1 for a passage fully
        supporting a nugget, 0 for the other passages they name).
    costs
        Per-query costs (:func:`rankset.io.read_costs`: ``[system,] query_id`` and any of
        ``latency_ms, tokens_in, tokens_out, cost``): the result's ``costs`` gives each
        system's mean, p50 and p95 of each over the scored queries.
    score_precision
        ``"float64"``: scores are doubles, as trec_eval 10.0 reads them. ``"float32"``:
        scores are rounded to 32-bit floats before ordering, as trec_eval 9.0.8 and
        pytrec_eval store them, so scores that differ only beyond float32 precision tie
        (``3.0000001`` and ``3``: RR 1.0 with doubles, 0.5 with floats when the relevant
        document has the smaller id).
    dataset_checks
        Labels in dataset JSON (``{"queries": [{"relevant_documents", "relevance_scores"}]}``)
        must keep its rules: a relevant document per query, and every one graded when
        ``relevance_scores`` is given. ``"error"`` names the first query that breaks one;
        ``"warn"`` reads on (such a query is scored as having no relevant document; an
        ungraded document gets grade 1) with one warning saying how many queries did.
    engine
        Polars engine of the pass over the runs: ``"auto"`` (``"in-memory"`` for runs
        given in memory, as dicts or frames, of up to a million rows in all, whose
        fixed cost it keeps low; else ``"streaming"``), ``"streaming"``, ``"in-memory"``
        or ``"gpu"`` (cudf-polars; without it a
        :class:`~rankset.RanksetWarning` and the streaming engine). ``"dask"`` runs the
        pass bucket by bucket on the workers of a Dask cluster (``client=``; needs
        ``rankset[dask]``; see :mod:`rankset.evaluation.cluster`). The values do not depend on it:
        the final sums always run in a fixed order on the CPU.
    buckets
        Larger-than-memory mode: pass over the runs ``buckets`` times, each time over the
        queries whose hashed id falls in one bucket (:func:`bucket_of`), so the pass
        holds one bucket's rows at a time; the values are bit-identical to
        a single pass. Parquet inputs (or a :func:`rankset.partition` dataset) are
        scanned, so only each bucket's rows are held; text inputs are parsed whole first.
        With ``engine="dask"`` the buckets are the cluster's tasks (by default the
        dataset's count, else four per worker thread).
    client
        For ``engine="dask"``: a ``dask.distributed.Client``; by default the current one.
    confidence, n_resamples, seed
        Percentile bootstrap confidence interval of each mean in the summary (queries
        resampled with replacement; seeded, deterministic); ``confidence=None`` skips it.
    progress
        With ``buckets``: called as ``progress(done, buckets, "buckets")`` before each
        bucket's pass and once at the end (``done == buckets``); see
        :data:`rankset.stats.Progress`. Nothing is counted without buckets.

    Returns
    -------
    EvaluationResult

    Examples
    --------
    >>> import rankset
    >>> run = {"q1": {"d1": 0.9, "d2": 0.8}, "q2": {"d3": 0.5}}
    >>> labels = {"q1": {"d2": 1}, "q2": {"d3": 2}}
    >>> rankset.evaluate(run, labels, ["rr", "ndcg@10"]).summary
    shape: (2, 7)
    ┌────────┬─────────┬──────────┬─────────┬─────────┬───────────┬──────┐
    │ system ┆ metric  ┆ mean     ┆ ci_low  ┆ ci_high ┆ n_queries ┆ n_na │
    │ ---    ┆ ---     ┆ ---      ┆ ---     ┆ ---     ┆ ---       ┆ ---  │
    │ str    ┆ str     ┆ f64      ┆ f64     ┆ f64     ┆ u32       ┆ u32  │
    ╞════════╪═════════╪══════════╪═════════╪═════════╪═══════════╪══════╡
    │ run    ┆ rr      ┆ 0.75     ┆ 0.5     ┆ 1.0     ┆ 2         ┆ 0    │
    │ run    ┆ ndcg@10 ┆ 0.815465 ┆ 0.63093 ┆ 1.0     ┆ 2         ┆ 0    │
    └────────┴─────────┴──────────┴─────────┴─────────┴───────────┴──────┘
    """
    given = locals()
    options = EvaluateOptions(**{name: given[name] for name in EvaluateOptions.option_names()})
    return evaluate_with(
        runs,
        labels,
        metrics,
        options,
        ks=ks,
        confidence=confidence,
        n_resamples=n_resamples,
        seed=seed,
        progress=progress,
    )


def evaluate_with(
    runs: IntoRun | Mapping[str, IntoRun] | TextMatch,
    labels: IntoLabels | None,
    metrics: str | Metric | Iterable[str | Metric],
    options: EvaluateOptions,
    *,
    ks: Sequence[int] | None = None,
    confidence: float | None = 0.95,
    n_resamples: int = 1000,
    seed: int = 0,
    progress: Progress | None = None,
) -> EvaluationResult:
    """Evaluate with an :class:`EvaluateOptions`: :func:`evaluate`'s one door.

    :func:`evaluate` builds the options from its keyword arguments and calls this; the
    command line, the pages and the analyses call it with theirs. ``"official"`` is
    replaced here, once, by the labels' official measures, and ``ks`` then applied
    (:func:`metrics_of`). One run held in memory (a ranx-style dict or an eager frame)
    is measured against labels prepared as an :class:`~rankset.evaluation.Evaluator`
    prepares them, in one collect when the fused plan takes it, and so are dict runs or
    frames given by name (``{name: run}``: one collect for all of them); any
    other input, or a run that brings what prepared labels lack, is planned whole. The values are
    bit-identical either way.
    """
    check_resampling(confidence, n_resamples, seed)
    parsed = metrics_of(metrics, labels, ks)
    result: EvaluationResult | None = None
    if labels is not None and _in_memory(runs):
        result = evaluate_run_queries(
            runs,
            labels,
            parsed,
            options,
            confidence=confidence,
            n_resamples=n_resamples,
            seed=seed,
        )
    if result is None and labels is not None and _in_memory(runs):
        prepared = PreparedEvaluation.of(labels, parsed, options)
        if prepared is not None:
            result = prepared.evaluate(
                runs, options.names, confidence=confidence, n_resamples=n_resamples, seed=seed
            )
    if result is None:
        plan, collected = plan_and_measure(runs, labels, parsed, options, progress=progress)
        result = result_of(
            plan, collected, confidence=confidence, n_resamples=n_resamples, seed=seed
        )
    if options.costs is None:
        return result
    from rankset.evaluation._costs import cost_summary

    costs = cost_summary(options.costs, result.per_query, result.systems)
    return dataclasses.replace(result, costs=costs)


def metrics_of(
    metrics: str | Metric | Iterable[str | Metric],
    labels: object,
    ks: Sequence[int] | None = None,
) -> list[Metric]:
    """Return the metrics an evaluation measures: ``"official"`` replaced, ``ks`` applied.

    The one place ``"official"`` stands for the official measures of the labels'
    collection (:func:`rankset.io.official_measures`, looked up only when it is named);
    ``ks`` then cuts every metric without a fixed cutoff
    (:func:`rankset.measures.expand_cutoffs`): the official measures are cut too.
    """
    names = with_official_measures(
        [metrics] if isinstance(metrics, str | Metric) else metrics, labels
    )
    return parse_metrics(names) if ks is None else expand_cutoffs(names, ks)


def _in_memory(runs: object) -> bool:
    """Whether ``runs`` is one run held in memory, or dicts or frames by name (read as one)."""
    if _one_run_in_memory(runs):
        return True
    return isinstance(runs, Mapping) and all(
        type(run) is dict or type(run) is pl.DataFrame for run in runs.values()
    )


def _one_run_in_memory(runs: object) -> bool:
    """Whether ``runs`` is one run held in memory: a ranx-style dict or an eager frame."""
    if isinstance(runs, Mapping):
        return looks_like_ranx(runs)
    return isinstance(runs, pl.DataFrame) or is_foreign_frame(runs)


def plan_and_measure(
    runs: IntoRun | Mapping[str, IntoRun] | TextMatch,
    labels: IntoLabels | None,
    metrics: list[Metric],
    options: EvaluateOptions,
    *,
    keep_rows: bool = False,
    progress: Progress | None = None,
) -> tuple[EvaluationPlan, Collected]:
    """Plan an evaluation and measure it with the executor its options choose.

    Plain-layout TREC run files are scanned lazily, so parsing them is part of the pass
    over the runs (no table of every line is held). The pass verifies the layout; when
    a file does not keep to it, everything is planned again with each file read whole
    by :func:`rankset.io.read`, whose general parser copes with the rest or names the
    offending line. Files are read whole from the start with buckets (each bucket
    would parse them again) and on the GPU or Dask engines.
    """
    try:
        return _plan_and_measure(
            runs, labels, metrics, options, keep_rows=keep_rows, progress=progress
        )
    except pl.exceptions.ComputeError as error:
        # A damaged Parquet file fails only when its pages are read.
        if "parquet" not in str(error).lower():
            raise
        named = _named_files(runs, labels)
        among = f" (one of {', '.join(named)})" if named else ""
        msg = f"A Parquet input{among} could not be read; is it damaged or cut short? {error}"
        raise InputFormatError(msg) from error


def _plan_and_measure(
    runs: IntoRun | Mapping[str, IntoRun] | TextMatch,
    labels: IntoLabels | None,
    metrics: list[Metric],
    options: EvaluateOptions,
    *,
    keep_rows: bool,
    progress: Progress | None,
) -> tuple[EvaluationPlan, Collected]:
    engine = resolve_engine(options.engine)  # warns once, if at all
    if options.engine != "auto":  # "auto" is settled by the runs' size when they are read
        options = options.replace(engine=engine)
    cut = options.max_depth is not None or options.judged_only  # they read runs whole
    if options.buckets is None and engine in ("streaming", "in-memory") and not cut:
        try:
            plan = plan_evaluation_inputs(runs, labels, metrics, options, scan_text=True)
        except RanksetError:
            # Planning relied on a scanned file's first tag (e.g. two runs named alike):
            # plan again from whole reads, which give the error if there is one.
            pass
        else:
            try:
                return plan, measure(plan, keep_rows=keep_rows)
            except TextScanRejected:
                pass
    plan = plan_evaluation_inputs(runs, labels, metrics, options)
    if plan.engine == "dask":
        plan = on_cluster(plan)
    return plan, measure(plan, keep_rows=keep_rows, progress=progress)


def _named_files(*inputs: object) -> list[str]:
    """Return the file names among evaluation inputs (one, a list, or a name mapping)."""
    named: list[str] = []
    for item in inputs:
        if isinstance(item, str | os.PathLike):
            named.append(os.fspath(item))
        elif isinstance(item, list | tuple):
            named += _named_files(*item)
        elif isinstance(item, Mapping) and not looks_like_ranx(item):
            named += _named_files(*item.values())
    return named


def on_cluster(plan: EvaluationPlan) -> EvaluationPlan:
    """Resolve the plan's Dask client, check its workers, and settle the bucket count."""
    from rankset.evaluation._dask import cluster_for

    client, buckets = cluster_for(plan.client, plan.buckets)
    return dataclasses.replace(
        plan, client=client, buckets=buckets, options=plan.options.replace(buckets=buckets)
    )


def measure(
    plan: EvaluationPlan, *, keep_rows: bool = False, progress: Progress | None = None
) -> Collected:
    """Measure every set of queries with the plan's executor, merge, apply the policies.

    Without buckets the whole input is one set. With ``buckets=N`` each bucket of
    queries is measured in turn here, or on the workers of a Dask cluster with
    ``engine="dask"``: the same kernel (:func:`measure_queries`) either way. ``progress``
    is told the buckets measured here: ``(done, N, "buckets")`` before each bucket's pass
    (the empty ones are skipped, counted done) and ``(N, N, "buckets")`` at the end.
    """
    parts: list[PartialResult]
    if plan.engine == "dask":
        from rankset.evaluation._dask import measure_on_cluster

        parts = measure_on_cluster(plan, keep_rows=keep_rows)
    elif plan.buckets is None:
        parts = [measure_queries(plan, None, keep_rows=keep_rows)]
    else:
        occupied = occupied_buckets(plan, plan.buckets)
        parts = []
        for bucket in occupied:
            if progress is not None:
                progress(bucket, plan.buckets, "buckets")
            parts.append(measure_queries(plan, (bucket, plan.buckets), keep_rows=keep_rows))
        if progress is not None:
            progress(plan.buckets, plan.buckets, "buckets")
        return finish(plan, merge_partial_results(parts, occupied))
    return finish(plan, merge_partial_results(parts))
