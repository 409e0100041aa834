"""Evaluate one or many runs against labels: one lazy plan, a tidy per-query result.

The plan, for any number of systems and metrics, runs in two phases.

The pass over the runs (the large data), on the chosen Polars engine (streaming by
default; every node of it runs natively there):

1. each ranking is numbered by a rank over ``(system, query_id)``: no global sort;
2. one group-by over ``(system, query_id)`` counts the documents retrieved (and the
   distinct ones, for the duplicate check);
3. the one join, run ⋈ labels on ``(query_id, doc_id)``, keeps the retrieved documents that
   have a label: every measure depends on those alone (see :mod:`rankset.plan`), and they
   are a few percent of a deep run.

The small phase, over the labelled rows and the labels, on the in-memory engine in a
canonical row order, so every floating-point sum and every value is bit-identical from
run to run and whatever the input order:

4. labels → per-query label statistics (number relevant, ideal DCG...);
5. one group-by over ``(system, query_id)`` computing every metric's aggregations,
   joined to the counts of step 2 (a query whose retrieved documents carry no label
   gets the aggregations' empty values);
6. the final formulas over the per-query frame, then a tidy reshaping.

Query-set policy (stated here once): by default a system is scored on the queries that
appear both in its run and in the labels (trec_eval's default); with ``missing="zero"``
every labelled query is scored and queries the system did not answer count as empty
rankings (trec_eval ``-c``). Queries dropped either way are counted in
:attr:`EvaluationResult.query_counts`.
"""

from __future__ import annotations

import importlib.util
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import polars as pl

from rankset import io as rio
from rankset._resample import summarise_means
from rankset._validation import check_choice, check_float, check_fraction, check_int
from rankset.errors import (
    ClusterError,
    ParameterError,
    RanksetError,
    RanksetWarning,
    SchemaError,
)
from rankset.plan import GROUP, QUERY_K, PlanBuilder
from rankset.registry import PER_QUERY, Metric, parse_metrics
from rankset.run_pass import (
    BUCKET_SEED,
    SMALL_ENGINE,
    RunPart,
    Runs,
    TextScanRejected,
    bucket_of,
    collect_frames,
    keep_bucket,
    looks_in_order,
    measure_pass,
)
from rankset.scales import TIERS, GradeScale, check_grades_in_scale, resolve_scale
from rankset.schema import (
    DuplicatePolicy,
    OrderPolicy,
    cast_run,
    check_cutoffs,
    duplicate_labels,
    normalize_cutoffs,
    normalize_labels,
    normalize_run,
    raise_on_duplicate_labels,
    run_profile,
    scores_present,
)
from rankset.textmatch import TextMatch

if TYPE_CHECKING:
    from rankset.io import ParsedInput

__all__ = [
    "BUCKET_SEED",
    "DEFAULT_K",
    "DEFAULT_METRICS",
    "ENGINES",
    "EvaluationResult",
    "bucket_of",
    "evaluate",
]

MissingPolicy = Literal["skip", "zero"]

#: Cutoff used by ``@k`` metrics when neither a cutoffs table nor ``k=`` gives one.
DEFAULT_K = 5
#: Metrics computed when none are named.
DEFAULT_METRICS = ("ndcg@10", "ap", "rr", "recall@100", "precision@10")

_MISSING_POLICIES = ("skip", "zero")
#: Engines the pass over the runs can run on (``engine=``).
ENGINES = ("auto", "streaming", "in-memory", "gpu", "dask")
Engine = Literal["auto", "streaming", "in-memory", "gpu", "dask"]
PassEngine = Literal["streaming", "in-memory", "gpu"]
_IN_LABELS = "_in_labels"


@dataclass(frozen=True)
class EvaluationResult:
    """The outcome of :func:`evaluate`.

    Attributes
    ----------
    per_query
        Tidy frame, one row per (system, query, metric): ``system, query_id, metric``
        (canonical name, e.g. ``ndcg@10``), ``measure`` (e.g. ``ndcg``), ``k`` (the
        cutoff, per query for ``@k`` metrics; null without one) and ``value`` (null = NA).
    summary
        One row per (system, metric): ``mean`` (over non-NA values), ``ci_low`` and
        ``ci_high`` (bootstrap confidence interval of the mean), ``n_queries``, ``n_na``.
    query_counts
        Per system: queries scored, run queries dropped for lack of labels, and label
        queries the run did not answer (dropped, or scored as empty with
        ``missing="zero"``).
    config
        The evaluation settings (metrics, policies, versions); stored in exported files.
    text_match
        When the runs were matched to gold texts (:func:`rankset.match_text`): per system,
        how many chunks matched a gold item, repeated one, or matched none.
    """

    per_query: pl.DataFrame
    summary: pl.DataFrame
    query_counts: pl.DataFrame
    config: dict[str, Any] = field(default_factory=dict)
    text_match: pl.DataFrame | None = None

    @property
    def metrics(self) -> list[str]:
        """Canonical metric names, in the order they were asked for."""
        return list(self.config.get("metrics", []))

    @property
    def systems(self) -> list[str]:
        """System names, sorted."""
        return sorted(self.per_query["system"].unique().to_list())

    def wide(self) -> pl.DataFrame:
        """Per-query values with one column per metric (``system, query_id, <metrics>``).

        Examples
        --------
        >>> import rankset
        >>> res = rankset.evaluate({"q1": {"a": 2.0, "b": 1.0}}, {"q1": {"b": 1}},
        ...                        ["rr", "precision@2"])
        >>> res.wide()
        shape: (1, 4)
        ┌────────┬──────────┬─────┬─────────────┐
        │ system ┆ query_id ┆ rr  ┆ precision@2 │
        │ ---    ┆ ---      ┆ --- ┆ ---         │
        │ str    ┆ str      ┆ f64 ┆ f64         │
        ╞════════╪══════════╪═════╪═════════════╡
        │ run    ┆ q1       ┆ 0.5 ┆ 0.5         │
        └────────┴──────────┴─────┴─────────────┘
        """
        return self.per_query.pivot(
            on="metric",
            index=["system", "query_id"],
            values="value",
            on_columns=self.metrics,
        )

    def summary_by(
        self,
        metadata: pl.DataFrame,
        by: str | Sequence[str],
        *,
        confidence: float | None = 0.95,
        n_resamples: int = 1000,
        seed: int = 0,
    ) -> pl.DataFrame:
        """Summaries within slices of the queries (topic, language, difficulty...).

        Parameters
        ----------
        metadata
            A frame with ``query_id`` and the slicing columns; queries it does not list
            fall in a null slice.
        by
            The slicing column(s).

        Returns
        -------
        polars.DataFrame
            ``system, <by...>, metric, mean, ci_low, ci_high, n_queries, n_na``.

        Examples
        --------
        >>> import rankset
        >>> res = rankset.evaluate({"a": {"d": 1.0}, "b": {"d": 1.0}},
        ...                        {"a": {"d": 1}, "b": {"x": 1}}, ["rr"])
        >>> topics = pl.DataFrame({"query_id": ["a", "b"], "topic": ["sports", "news"]})
        >>> res.summary_by(topics, "topic").select("topic", "mean").rows()
        [('news', 0.0), ('sports', 1.0)]
        """
        keys = [by] if isinstance(by, str) else list(by)
        missing = [c for c in ["query_id", *keys] if c not in metadata.columns]
        if missing:
            msg = (
                f"The metadata has no column {', '.join(map(repr, missing))}; it has "
                f"{', '.join(metadata.columns)}."
            )
            raise ParameterError(msg)
        order = {name: i for i, name in enumerate(self.metrics)}
        sliced = (
            self.per_query.join(
                metadata.select(pl.col("query_id").cast(pl.String), *keys).unique("query_id"),
                on="query_id",
                how="left",
            )
            .with_columns(_order=pl.col("metric").replace_strict(order, return_dtype=pl.Int64))
            .sort(["system", *keys, "_order", "query_id"], nulls_last=True)
            .drop("_order")
        )
        return summarise_means(
            sliced,
            ["metric"],
            outer=["system", *keys],
            confidence=confidence,
            n_resamples=n_resamples,
            seed=seed,
        )

    def to_parquet(self, path: str | Path) -> Path:
        """Write :attr:`per_query` to Parquet, atomically, with the config as metadata.

        The configuration is stored as JSON under the key ``rankset`` of the file's
        key-value metadata.
        """
        return rio.write_parquet(self.per_query, path, config=self.config)

    def __repr__(self) -> str:
        systems = self.summary["system"].n_unique()
        return (
            f"EvaluationResult({systems} system(s), {len(self.metrics)} metric(s), "
            f"{self.per_query.height} per-query values)\n{self.summary}"
        )

    def _repr_html_(self) -> str:
        return self.summary._repr_html_()


def evaluate(
    runs: Any,
    labels: Any = None,
    metrics: str | Metric | Iterable[str | Metric] = DEFAULT_METRICS,
    *,
    k: int | None = None,
    relevance_level: float = 1,
    missing: MissingPolicy = "skip",
    cutoffs: Any = None,
    order: OrderPolicy = "auto",
    duplicates: DuplicatePolicy = "error",
    names: Sequence[str] | None = None,
    default_k: int = DEFAULT_K,
    scale: str | Mapping[float, int] | GradeScale = "rag5",
    pool: Any = None,
    pool_depth: int | None = None,
    answers: Any = None,
    engine: Engine = "auto",
    buckets: int | None = None,
    client: Any = None,
    confidence: float | None = 0.95,
    n_resamples: int = 1000,
    seed: int = 0,
) -> EvaluationResult:
    """Score runs against labels with the named metrics.

    Parameters
    ----------
    runs
        One run or several: a path (TREC, JSON/JSONL, Parquet, CSV; ``.gz`` ok), an
        in-memory Polars/pandas/pyarrow frame, a ranx-style ``{qid: {doc: score}}`` dict,
        a list of those, or a ``{system_name: run}`` dict. Or the
        :class:`~rankset.textmatch.TextMatch` of runs of text chunks matched to gold texts
        (then ``labels`` is omitted: the gold items are the labels).
    labels
        Labels (qrels) in any of the same forms; may be omitted when the runs carry their
        own labels (seed-000 JSONL samples).
    metrics
        Metric names in any accepted spelling (see :func:`rankset.parse_metric`).
    k
        Cutoff for ``@k`` metrics on queries without a per-query cutoff.
    relevance_level
        Grade at or above which binary metrics count a document as relevant.
    missing
        ``"skip"`` scores queries in both run and labels; ``"zero"`` scores every
        labelled query, unanswered ones as empty rankings.
    cutoffs
        Per-query cutoffs for ``@k`` metrics: ``{query_id: k}`` or a frame
        ``query_id, k``; by default taken from the samples' ``metadata.k``.
    order
        ``"auto"`` (scores when present, else ranks), ``"score"`` or ``"rank"``.
    duplicates
        ``"error"`` or ``"keep_best"`` for a document ranked twice in one query.
    names
        System names, one per run, overriding the naming rule.
    default_k
        Cutoff used when neither ``cutoffs`` nor ``k`` gives one.
    scale
        How grades map to the tiers 5..1 of the RAG set metrics: ``"rag5"`` (grades 1..5),
        ``"trec_dl"`` (0-3), ``"binary"`` (0-1) or a ``{grade: tier}`` dict.
    pool
        Candidate pool for ``proc@k``: by default what each system retrieved (full
        depth); a run (any form above) serves as the pool of every system, a
        ``{system_name: run}`` dict matches pools to systems by name.
    pool_depth
        Keep only the first ``pool_depth`` documents of each pool (a system's own list or
        the pool run), e.g. the depth a reranker actually reordered.
    answers
        Acceptable answer strings for ``containment@k``: ``{query_id: [answers]}``, a frame
        ``query_id, answer`` or a file; by default the samples' ``expected_answer``.
    engine
        Polars engine of the pass over the runs: ``"auto"`` (= ``"streaming"``),
        ``"streaming"``, ``"in-memory"`` or ``"gpu"`` (cudf-polars; without it a
        :class:`~rankset.RanksetWarning` and the streaming engine). ``"dask"`` runs the
        pass bucket by bucket on the workers of a Dask cluster (``client=``; needs
        ``rankset[dask]``; see :mod:`rankset.cluster`). The values do not depend on it:
        the final sums always run in a fixed order on the CPU.
    buckets
        Larger-than-memory mode: pass over the runs ``buckets`` times, each time over the
        queries whose hashed id falls in one bucket (:func:`bucket_of`), so the peak
        memory of the pass falls about ``buckets``-fold; the values are bit-identical to
        a single pass. Parquet inputs (or a :func:`rankset.partition` dataset) are
        scanned, so only each bucket's rows are held; text inputs are parsed whole first.
        With ``engine="dask"`` the buckets are the cluster's tasks (by default the
        dataset's count, else four per worker thread).
    client
        For ``engine="dask"``: a ``dask.distributed.Client``; by default the current one.
    confidence, n_resamples, seed
        Percentile bootstrap confidence interval of each mean in the summary (queries
        resampled with replacement; seeded, deterministic); ``confidence=None`` skips it.

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
    _check_resampling(confidence, n_resamples, seed)
    prepared, collected = prepare_and_collect(
        runs,
        labels,
        parse_metrics(metrics),
        k=k,
        relevance_level=relevance_level,
        missing=missing,
        cutoffs=cutoffs,
        order=order,
        duplicates=duplicates,
        names=names,
        default_k=default_k,
        scale=scale,
        pool=pool,
        pool_depth=pool_depth,
        answers=answers,
        engine=engine,
        buckets=buckets,
        client=client,
    )
    return _result(prepared, collected, confidence=confidence, n_resamples=n_resamples, seed=seed)


def prepare_and_collect(
    runs: Any, labels: Any, metrics: list[Metric], *, keep_rows: bool = False, **settings: Any
) -> tuple[_Prepared, _Collected]:
    """Plan an evaluation and measure it: :func:`_prepare`, then :func:`_collect`.

    Plain-layout TREC run files are scanned lazily, so parsing them is part of the pass
    over the runs (no table of every line is held). The pass verifies the layout; when
    a file does not keep to it, everything is planned again with each file read whole
    by :func:`rankset.io.read`, whose general parser copes with the rest or names the
    offending line. Files are read whole from the start with buckets (each bucket
    would parse them again) and on the GPU or Dask engines.
    """
    engine = resolve_engine(settings.get("engine", "auto"))  # warns once, if at all
    settings = {**settings, "engine": engine}
    if settings.get("buckets") is None and engine in ("streaming", "in-memory"):
        try:
            prepared = _prepare(runs, labels, metrics, scan_text=True, **settings)
        except RanksetError:
            # Planning relied on a scanned file's first tag (e.g. two runs named alike):
            # plan again from whole reads, which give the error if there is one.
            pass
        else:
            try:
                return prepared, _collect(prepared, keep_rows=keep_rows)
            except TextScanRejected:
                pass
    prepared = _prepare(runs, labels, metrics, **settings)
    return prepared, _collect(prepared, keep_rows=keep_rows)


def _result(
    prepared: _Prepared,
    collected: _Collected,
    *,
    confidence: float | None,
    n_resamples: int,
    seed: int,
) -> EvaluationResult:
    """Turn the finished frames into the tidy per-query result and its summary."""
    frame = collected.scored.join(collected.stats, on="query_id", how="left")
    per_query = _tidy(frame, prepared.metrics, prepared.values)
    summary = summarise_means(
        per_query, ["metric"], confidence=confidence, n_resamples=n_resamples, seed=seed
    )
    return EvaluationResult(
        per_query=per_query,
        summary=summary,
        query_counts=collected.query_counts,
        config=collected.config,
        text_match=prepared.text_match,
    )


@dataclass(frozen=True)
class _Prepared:
    """Everything an evaluation plans before collecting: inputs, metrics, lazy frames."""

    metrics: list[Metric]
    values: dict[str, pl.Expr]
    plan: PlanBuilder
    runs: Runs
    labels: pl.LazyFrame
    label_source: str
    cutoffs: pl.LazyFrame | None
    pools: _Pools | None
    answers: pl.LazyFrame | None
    answer_positions: pl.LazyFrame | None
    text_match: pl.DataFrame | None
    settings: dict[str, Any]
    # A partitioned dataset's labels with their bucket column, and its bucket count.
    dataset_labels: tuple[pl.LazyFrame, int] | None = None
    client: Any = None  # the Dask client of engine="dask" (never sent to the workers)


@dataclass(frozen=True)
class _Collected:
    scored: pl.DataFrame  # one row per scored (system, query): the aggregations
    stats: pl.DataFrame  # one row per labelled query: the label statistics
    query_counts: pl.DataFrame
    config: dict[str, Any]
    extra: dict[str, pl.DataFrame]
    # The small phase's inputs, in memory: labelled run rows with the plan's row columns
    # (canonical order), and the labels with the plan's label row columns.
    rows: pl.LazyFrame
    label_rows: pl.LazyFrame


def _prepare(
    runs: Any,
    labels: Any,
    metrics: list[Metric],
    *,
    k: int | None,
    relevance_level: float,
    missing: str,
    cutoffs: Any,
    order: OrderPolicy,
    duplicates: DuplicatePolicy,
    names: Sequence[str] | None,
    default_k: int,
    scale: str | Mapping[float, int] | GradeScale,
    pool: Any,
    answers: Any,
    pool_depth: int | None = None,
    engine: Engine = "auto",
    buckets: int | None = None,
    client: Any = None,
    scan_text: bool = False,
) -> _Prepared:
    _check_parameters(k, relevance_level, missing, default_k)
    resolved_engine = resolve_engine(engine)
    text_match = None
    if isinstance(runs, TextMatch):
        if labels is not None:
            msg = "A TextMatch carries its own labels (the gold items): leave labels= out."
            raise ParameterError(msg)
        # The match numbered each ranking; that numbering is the order to evaluate.
        text_match, runs, labels, order = runs.report, runs.run, runs.labels, "rank"

    inputs = _read_runs(runs, names, scan_text=scan_text)
    run_frame = _assign_system_names(
        inputs, order=order, duplicates=duplicates, engine=resolved_engine
    )
    label_input = _read_labels(labels, inputs)
    label_source = label_input.source if label_input is not None else "labels"
    if label_input is None or label_input.labels is None:
        msg = (
            "No labels: pass labels= (CLI --qrels) or use runs that carry their own labels "
            "(JSONL samples with expected_output)."
        )
        raise ParameterError(msg)
    label_frame = normalize_labels(label_input.labels, source=label_source)
    cutoff_frame = _read_cutoffs(cutoffs, inputs, label_input)

    if pool_depth is not None:
        check_int("pool_depth", pool_depth, 1)
    plan = PlanBuilder(
        relevance_level=float(relevance_level),
        scale=resolve_scale(scale),
        pool_depth=pool_depth,
    )
    values = {metric.name: metric.spec.build(plan, metric) for metric in metrics}  # type: ignore[misc]

    if buckets is not None:
        check_int("buckets", buckets, 1)
    else:
        buckets = run_frame.dataset_buckets()  # a partitioned dataset brings its own
    if resolved_engine == "dask":
        from rankset.cluster import cluster_for

        client, buckets = cluster_for(client, buckets)
    answer_frame = _read_answers(answers, inputs, label_input) if plan.containment_modes else None
    return _Prepared(
        metrics=metrics,
        values=values,
        plan=plan,
        runs=run_frame,
        labels=label_frame,
        label_source=label_source,
        cutoffs=cutoff_frame,
        pools=_pool_tier_counts(plan, pool, label_frame, order=order, depth=pool_depth),
        answers=answer_frame,
        answer_positions=(
            _answer_positions(plan, run_frame, answer_frame) if answer_frame is not None else None
        ),
        text_match=text_match,
        dataset_labels=(
            (label_input.labels, label_input.buckets)
            if label_input.buckets is not None
            and "bucket" in label_input.labels.collect_schema().names()
            else None
        ),
        client=client,
        settings={
            "metrics": [m.name for m in metrics],
            "relevance_level": relevance_level,
            "missing": missing,
            "k": k,
            "default_k": default_k,
            "order": order,
            "duplicates": duplicates,
            "pool_depth": pool_depth,
            "engine": resolved_engine,
            "buckets": buckets,
        },
    )


def _collect(prepared: _Prepared, *, keep_rows: bool = False) -> _Collected:
    """Measure every partition of the queries, merge them, apply the query policies.

    Without buckets the whole input is one partition. With ``buckets=N`` each bucket of
    queries is measured in turn here, or on the workers of a Dask cluster with
    ``engine="dask"``: the same kernel (:func:`measure_partition`) either way.
    """
    buckets = prepared.settings["buckets"]
    if prepared.settings["engine"] == "dask":
        from rankset.cluster import measure_on_cluster

        parts = measure_on_cluster(prepared, keep_rows=keep_rows)
    elif buckets is None:
        parts = [measure_partition(prepared, None, keep_rows=keep_rows)]
    else:
        parts = [
            measure_partition(prepared, (bucket, buckets), keep_rows=keep_rows)
            for bucket in range(buckets)
        ]
    return _finish(prepared, merge_partitions(parts))


@dataclass(frozen=True)
class Partition:
    """What the kernel returns for one partition of whole queries (small frames).

    ``aggregates`` has one row per (system, query) of the runs: the counts, the plan's
    aggregations and whether the query is labelled; ``stats`` one row per labelled
    query; ``extra`` the pool counts and answer positions when asked for. ``rows`` and
    ``label_rows`` (the labelled run rows and the label rows, with the plan's row
    columns) are kept for metric-vs-k curves only.
    """

    aggregates: pl.DataFrame
    stats: pl.DataFrame
    extra: dict[str, pl.DataFrame]
    rows: pl.LazyFrame | None = None
    label_rows: pl.LazyFrame | None = None
    bucket: tuple[int, int] | None = None  # (bucket, buckets) when measured by bucket


def measure_partition(
    prepared: _Prepared, bucket: tuple[int, int] | None, *, keep_rows: bool = False
) -> Partition:
    """Run both phases of the plan over the queries of one bucket (all when ``None``).

    This is the engine-agnostic kernel: one call per bucket of whole queries, on this
    machine or on a cluster worker, from the same inputs to the same small frames.
    Every aggregation groups by query (or by system and query), so the partitions'
    frames, concatenated and sorted (:func:`merge_partitions`), equal those of one
    pass over everything, bit for bit.
    """
    plan, runs = prepared.plan, prepared.runs
    engine = prepared.settings["engine"]
    if engine == "dask":  # on a worker: the pass runs on its streaming engine
        engine = "streaming"
    labels = _labels_in_bucket(prepared, bucket)
    optional = {
        "cutoffs": prepared.cutoffs,
        "grades": labels.select(pl.col("grade").unique()) if plan.uses_tiers else None,
        "pool": prepared.pools.counts if prepared.pools is not None else None,
        "answer_positions": prepared.answer_positions,
        "answer_counts": (
            prepared.answers.group_by("query_id").agg(_n_answers=pl.len())
            if prepared.answers is not None
            else None
        ),
    }
    wanted = {
        name: frame if name == "grades" else keep_bucket(frame, bucket)
        for name, frame in optional.items()
        if frame is not None
    }
    hits_frame, counts_frame, (label_frame, label_dups, *rest) = measure_pass(
        runs, labels, bucket, engine, [labels, duplicate_labels(labels), *wanted.values()]
    )
    extra = dict(zip(wanted, rest, strict=True))
    raise_on_duplicate_labels(label_dups, prepared.label_source)
    if "cutoffs" in extra:
        check_cutoffs(extra["cutoffs"])
    if "grades" in extra:
        check_grades_in_scale(extra.pop("grades")["grade"], plan.scale, prepared.label_source)

    # The small phase: a canonical order first, for bit-identical sums.
    k = prepared.settings["k"] or prepared.settings["default_k"]
    cutoffs = extra.pop("cutoffs").lazy() if "cutoffs" in extra else None
    label_rows = _label_rows(plan, label_frame.lazy(), cutoffs, k)
    query_stats = _label_statistics(plan, label_rows)
    rows = _run_rows(plan, hits_frame.lazy(), query_stats)
    aggregates, stats = pl.collect_all(
        [_aggregate_run(plan, rows, counts_frame.lazy(), query_stats), query_stats],
        engine=SMALL_ENGINE,
    )
    if not keep_rows:
        return Partition(aggregates, stats, extra, bucket=bucket)
    return Partition(aggregates, stats, extra, rows=rows, label_rows=label_rows, bucket=bucket)


def merge_partitions(parts: Sequence[Partition]) -> Partition:
    """Concatenate the partitions' frames in the order one pass would give them.

    Raises
    ------
    ClusterError
        A bucket is missing or measured twice, or a query was measured in two
        partitions (they must hold whole queries: all their run rows and labels).
    """
    if not parts:
        raise ClusterError("No partition was measured.")
    if len(parts) == 1:
        return parts[0]
    _check_whole_queries(parts)
    extra = {
        name: pl.concat([part.extra[name] for part in parts], how="vertical")
        for name in parts[0].extra
    }
    rows = [part.rows for part in parts if part.rows is not None]
    label_rows = [part.label_rows for part in parts if part.label_rows is not None]
    return Partition(
        aggregates=pl.concat([part.aggregates for part in parts]).sort(*GROUP),
        stats=pl.concat([part.stats for part in parts]).sort("query_id"),
        extra=extra,
        rows=pl.concat(rows).sort(*GROUP, "pos", maintain_order=True) if rows else None,
        label_rows=pl.concat(label_rows) if label_rows else None,
    )


def _check_whole_queries(parts: Sequence[Partition]) -> None:
    buckets = [part.bucket for part in parts if part.bucket is not None]
    if buckets:
        count = buckets[0][1]
        measured = sorted(bucket for bucket, _ in buckets)
        if len(buckets) != len(parts) or measured != list(range(count)):
            missing = sorted(set(range(count)) - set(measured))
            twice = sorted({b for b in measured if measured.count(b) > 1})
            msg = (
                f"The partitions do not cover the {count} buckets once each "
                f"(missing: {missing or 'none'}; measured twice: {twice or 'none'})."
            )
            raise ClusterError(msg)
        return
    label_queries = pl.concat([part.stats.select("query_id") for part in parts])
    run_queries = pl.concat([part.aggregates.select(*GROUP) for part in parts])
    repeated = (
        pl.concat(
            [
                label_queries.filter(pl.col("query_id").is_duplicated()),
                run_queries.filter(pl.struct(GROUP).is_duplicated()).select("query_id"),
            ]
        )["query_id"]
        .unique()
        .sort()
    )
    if repeated.len():
        msg = (
            f"Queries {repeated.head(3).to_list()} were measured in more than one partition: "
            "each partition must hold whole queries (all their run rows and labels), e.g. "
            "partitioned by rankset.evaluation.bucket_of(query_id)."
        )
        raise ClusterError(msg)


def _labels_in_bucket(prepared: _Prepared, bucket: tuple[int, int] | None) -> pl.LazyFrame:
    """Return the labels of the queries in ``bucket``: the dataset's folder, else by hash."""
    dataset = prepared.dataset_labels
    if bucket is not None and dataset is not None and dataset[1] == bucket[1]:
        frame = dataset[0].filter(pl.col("bucket") == bucket[0])
        return normalize_labels(frame, source=prepared.label_source)
    return keep_bucket(prepared.labels, bucket)


def _finish(prepared: _Prepared, merged: Partition) -> _Collected:
    """Apply the query policies and the pools to the merged partitions; describe the run."""
    plan, runs = prepared.plan, prepared.runs
    aggregates, stats, extra = merged.aggregates, merged.stats, dict(merged.extra)
    systems = aggregates["system"].unique().sort().to_list()
    scored, query_counts = _apply_query_policy(
        plan, aggregates, stats, systems, prepared.settings["missing"], runs.sources
    )
    if prepared.pools is not None:
        scored = prepared.pools.replace_counts(scored, extra["pool"])
    if "answer_positions" in extra:
        scored = scored.join(extra["answer_positions"], on=["system", "query_id"], how="left")
        stats = stats.join(extra["answer_counts"], on="query_id", how="left")
    config = {
        **prepared.settings,
        "scale": plan.scale.describe(),
        "pool": None if prepared.pools is None else prepared.pools.description,
        "systems": systems,
        "runs": runs.sources,
        "labels": prepared.label_source,
        "rankset_version": _version(),
        "polars_version": pl.__version__,
    }
    if prepared.text_match is not None:
        config["text_match"] = prepared.text_match.to_dicts()
    return _Collected(
        scored=scored,
        stats=stats,
        query_counts=query_counts,
        config=config,
        extra=extra,
        rows=merged.rows if merged.rows is not None else pl.LazyFrame(),
        label_rows=merged.label_rows if merged.label_rows is not None else pl.LazyFrame(),
    )


def resolve_engine(engine: Engine) -> PassEngine | Literal["dask"]:
    """Return the engine the pass over the runs uses for ``engine=``.

    ``"auto"`` is the streaming engine. ``"gpu"`` runs on NVIDIA GPUs through cudf-polars
    when it is installed (operations it lacks fall back to the CPU, as Polars does);
    without it, a :class:`~rankset.RanksetWarning` says so and the streaming engine runs.
    ``"dask"`` stays: the pass then runs on the workers of a Dask cluster.

    Examples
    --------
    >>> resolve_engine("auto")
    'streaming'
    """
    check_choice("engine", engine, ENGINES)
    if engine == "gpu" and importlib.util.find_spec("cudf_polars") is None:
        warnings.warn(
            "engine='gpu' needs cudf-polars (pip install 'polars[gpu]'), which is not "
            "installed; running on the CPU with the streaming engine instead.",
            RanksetWarning,
            stacklevel=4,
        )
        return "streaming"
    if engine == "auto":
        return "streaming"
    return engine


# --- parameters and inputs -------------------------------------------------------------


#: What :func:`evaluate` takes besides runs, labels, metrics and the summary options.
EVALUATE_OPTIONS: dict[str, Any] = {
    "k": None,
    "relevance_level": 1,
    "missing": "skip",
    "cutoffs": None,
    "order": "auto",
    "duplicates": "error",
    "names": None,
    "default_k": DEFAULT_K,
    "scale": "rag5",
    "pool": None,
    "pool_depth": None,
    "answers": None,
    "engine": "auto",
    "buckets": None,
    "client": None,
}


def evaluate_options(
    options: Mapping[str, Any], caller: str, *, excluded: Sequence[str] = ()
) -> dict[str, Any]:
    """Return ``options`` completed with :func:`evaluate`'s defaults; reject unknown ones."""
    allowed = set(EVALUATE_OPTIONS) - set(excluded)
    unknown = sorted(set(options) - allowed)
    if unknown:
        msg = f"{caller}() got unexpected option(s) {', '.join(map(repr, unknown))}."
        raise ParameterError(msg)
    return {**{k: v for k, v in EVALUATE_OPTIONS.items() if k in allowed}, **options}


def _check_parameters(k: int | None, relevance_level: float, missing: str, default_k: int) -> None:
    if k is not None:
        check_int("k", k, 1)
    check_int("default_k", default_k, 1)
    check_float("relevance_level", relevance_level)
    check_choice("missing", missing, _MISSING_POLICIES)


def _check_resampling(confidence: float | None, n_resamples: int, seed: int) -> None:
    if confidence is not None:
        check_fraction("confidence", confidence)
    check_int("n_resamples", n_resamples, 1)
    check_int("seed", seed, 0)


@dataclass(frozen=True)
class _RunInput:
    parsed: ParsedInput
    name: str | None


def _read_runs(
    runs: Any, names: Sequence[str] | None, *, scan_text: bool = False
) -> list[_RunInput]:
    """Read each run input; ``scan_text``: plain TREC files lazily (see ``TextScan``)."""
    items: list[tuple[str | None, Any]]
    if isinstance(runs, Mapping) and not _is_ranx_run(runs):
        items = [(str(name), source) for name, source in runs.items()]
    elif isinstance(runs, list | tuple):
        items = [(None, source) for source in runs]
    else:
        items = [(None, runs)]
    if not items:
        msg = "No run was given: pass at least one run."
        raise ParameterError(msg)
    if names is not None:
        if isinstance(names, str) or len(names) != len(items):
            msg = (
                f"The 'names' parameter must give one name per run ({len(items)} runs). "
                f"Got {names!r} instead."
            )
            raise ParameterError(msg)
        items = [(str(name), source) for name, (_, source) in zip(names, items, strict=True)]
    parsed = [_read_run(source, scan_text) for _, source in items]
    if any(item.buckets is not None for item in parsed):
        # A partitioned dataset brings its buckets, and each would parse a scan again.
        parsed = [
            rio.read(source, kind="run") if item.scan is not None else item
            for item, (_, source) in zip(parsed, items, strict=True)
        ]
    return [_RunInput(item, name) for item, (name, _) in zip(parsed, items, strict=True)]


def _read_run(source: Any, scan_text: bool) -> ParsedInput:
    scanned = rio.scan_trec_run(source) if scan_text else None
    return scanned if scanned is not None else rio.read(source, kind="run")


def _is_ranx_run(obj: Mapping[Any, Any]) -> bool:
    """``{qid: {doc: number}}`` is one run; ``{name: run}`` names several."""
    first = next(iter(obj.values()), None)
    if not isinstance(first, Mapping):
        return False
    inner = next(iter(first.values()), None)
    return inner is None or isinstance(inner, int | float)


def _assign_system_names(
    inputs: list[_RunInput],
    *,
    order: OrderPolicy,
    duplicates: DuplicatePolicy,
    engine: PassEngine | Literal["dask"],
) -> Runs:
    """Apply the naming rule (explicit name > uniform tag > file stem) and normalise."""
    for item in inputs:
        if item.parsed.run is None:
            msg = f"{item.parsed.source}: no run found in this input."
            raise SchemaError(msg)
    # One pass over every run answers both questions asked before planning: its tag(s),
    # and whether its scores exist.
    # A partitioned dataset's manifest holds its profile already: no pass over it here.
    # Nor over a lazily scanned text file: its first line's tag is assumed to be every
    # line's and each line has a score; the pass over the runs verifies both.
    unknown = [item for item in inputs if _known_profile(item.parsed) is None]
    measured = iter(
        collect_frames(
            [run_profile(item.parsed.run) for item in unknown if item.parsed.run is not None],
            engine,
        )
    )
    profiles = [
        known
        if (known := _known_profile(item.parsed)) is not None
        else next(measured).row(0, named=True)
        for item in inputs
    ]
    candidates: list[tuple[str | None, str | None]] = []  # (tag-or-explicit, stem)
    for item, profile in zip(inputs, profiles, strict=True):
        if item.name is not None:
            candidates.append((item.name, item.name))
            continue
        tags: list[str] = profile["tags"]
        is_file = item.parsed.stem is not None
        if len(tags) == 1:
            candidates.append((tags[0], item.parsed.stem))
        elif len(tags) > 1 and not is_file:
            candidates.append((None, None))  # a multi-system frame keeps its column
        else:
            candidates.append((item.parsed.stem, item.parsed.stem))

    chosen = [tag for tag, _ in candidates]
    named = [c for c in chosen if c is not None]
    if len(set(named)) != len(named):
        # Two inputs would share a name (every rank_llm run is tagged "rank"): use stems.
        chosen = [stem if tag is not None else None for tag, stem in candidates]
        explicit = [c for c in chosen if c is not None]
        if len(set(explicit)) != len(explicit):
            msg = (
                "Two runs would get the same system name "
                f"({', '.join(sorted({c for c in explicit if explicit.count(c) > 1}))}); "
                "give each a name (names=..., CLI --name)."
            )
            raise ParameterError(msg)
    default_names = iter(
        ["run"] if len(inputs) == 1 else [f"run{i + 1}" for i in range(len(inputs))]
    )

    parts: list[RunPart] = []
    for item, name, profile in zip(inputs, chosen, profiles, strict=True):
        fallback = next(default_names)
        run = item.parsed.run
        assert run is not None  # checked above
        if name is None and "system" in run.collect_schema().names():
            frame = run.with_columns(pl.col("system").cast(pl.String).fill_null(fallback))
            literal = None
        else:
            literal = name or fallback
            frame = run.with_columns(system=pl.lit(literal, dtype=pl.String))
        # order="rank" never looks at scores, so partly missing ones are no error there.
        has_scores = order != "rank" and (
            item.parsed.scan is not None
            or scores_present(profile["n_scores"], profile["n_rows"], item.parsed.source)
        )
        # A scanned file's first lines were parsed already; other inputs show their head.
        first_rows = frame
        if item.parsed.scan is not None:
            first_rows = item.parsed.scan.head.lazy().with_columns(system=pl.lit(literal))
        in_order = duplicates == "error" and looks_in_order(
            *cast_run(first_rows, source=item.parsed.source, order=order, has_scores=has_scores),
            one_system=literal is not None,
        )
        parts.append(
            RunPart(
                frame,
                item.parsed.source,
                has_scores,
                item.parsed.buckets,
                profile,
                literal,
                in_order=in_order,
                scan=item.parsed.scan,
            )
        )

    return Runs(inputs=parts, order=order, duplicates=duplicates)


def _known_profile(parsed: ParsedInput) -> dict[str, Any] | None:
    """Return the run profile known without reading the run (a dataset's, a scan's)."""
    if parsed.scan is not None:
        # Counts unknown until the pass; every line of the layout has a score.
        return {"tags": [parsed.scan.tag], "n_scores": None, "n_rows": None}
    return parsed.profile


def _read_labels(labels: Any, inputs: list[_RunInput]) -> ParsedInput | None:
    if labels is not None:
        return rio.read(labels, kind="labels")
    carried = [item.parsed for item in inputs if item.parsed.labels is not None]
    if not carried:
        return None
    if len(carried) > 1:
        # Several sample files: their labels must agree; take their union.
        union = pl.concat([p.labels for p in carried if p.labels is not None]).unique()
        return rio.ParsedInput(
            source=" + ".join(p.source for p in carried),
            stem=None,
            format=carried[0].format,
            run=None,
            labels=union,
            cutoffs=carried[0].cutoffs,
            answers=carried[0].answers,
        )
    return carried[0]


def _read_cutoffs(
    cutoffs: Any, inputs: list[_RunInput], label_input: ParsedInput
) -> pl.LazyFrame | None:
    if cutoffs is None:
        found = [i.parsed.cutoffs for i in inputs if i.parsed.cutoffs is not None]
        if label_input.cutoffs is not None:
            found.append(label_input.cutoffs)
        if not found:
            return None
        return normalize_cutoffs(pl.concat(found).unique())
    if isinstance(cutoffs, Mapping):
        frame = pl.LazyFrame(
            {"query_id": [str(q) for q in cutoffs], "k": list(cutoffs.values())},
            schema={"query_id": pl.String, "k": pl.Int64},
        )
        return normalize_cutoffs(frame)
    if isinstance(cutoffs, pl.DataFrame):
        return normalize_cutoffs(cutoffs.lazy())
    if isinstance(cutoffs, pl.LazyFrame):
        return normalize_cutoffs(cutoffs)
    msg = (
        "The 'cutoffs' parameter must be a {query_id: k} dict or a frame with columns "
        f"query_id, k. Got {type(cutoffs).__name__} instead."
    )
    raise ParameterError(msg)


# --- the plan --------------------------------------------------------------------------


def _label_rows(
    plan: PlanBuilder, labels: pl.LazyFrame, cutoffs: pl.LazyFrame | None, k: int
) -> pl.LazyFrame:
    # A canonical row order makes every floating-point sum, and so every value, identical
    # whatever order the labels came in.
    rows = labels.sort("query_id", "doc_id")
    if plan.uses_query_k:
        if cutoffs is not None:
            rows = rows.join(cutoffs.unique(), on="query_id", how="left", maintain_order="left")
            rows = rows.with_columns(pl.col("k").fill_null(k).alias(QUERY_K)).drop("k")
        else:
            rows = rows.with_columns(pl.lit(k, dtype=pl.Int64).alias(QUERY_K))
    for expr in plan.label_row_columns.values():
        rows = rows.with_columns(expr)
    return rows


def _label_statistics(plan: PlanBuilder, label_rows: pl.LazyFrame) -> pl.LazyFrame:
    aggregations = [pl.len().alias("_n_labels"), *plan.label_aggregations.values()]
    if plan.uses_query_k:
        aggregations.append(pl.col(QUERY_K).first())
    return label_rows.group_by("query_id").agg(aggregations)


def _run_rows(plan: PlanBuilder, hits: pl.LazyFrame, stats: pl.LazyFrame) -> pl.LazyFrame:
    """Order the labelled run rows canonically and add the plan's row columns."""
    on_rows = sorted(plan.label_stats_on_rows)
    rows = hits.sort(*GROUP, "pos")
    if on_rows:
        rows = rows.join(
            stats.select("query_id", *on_rows), on="query_id", how="left", maintain_order="left"
        )
    for expr in plan.row_columns.values():
        rows = rows.with_columns(expr)
    return rows


def _aggregate_run(
    plan: PlanBuilder, rows: pl.LazyFrame, run_counts: pl.LazyFrame, stats: pl.LazyFrame
) -> pl.LazyFrame:
    """Per (system, query): the plan's aggregations over the labelled rows, and the counts.

    A ranking without labelled documents has no rows to aggregate: it takes each
    aggregation's empty value (0 for sums, null for minima).
    """
    aggregated = rows.group_by(list(GROUP)).agg(plan.aggregations.values())
    fills = [
        pl.col(name).fill_null(value)
        for name, value in plan.empty_values.items()
        if value is not None and name in plan.aggregations
    ]
    return (
        run_counts.sort(*GROUP)
        .join(aggregated, on=list(GROUP), how="left", maintain_order="left")
        .join(
            stats.select("query_id", pl.lit(True).alias(_IN_LABELS)),
            on="query_id",
            how="left",
            maintain_order="left",
        )
        .with_columns(pl.col(_IN_LABELS).fill_null(False), *fills)
    )


def _apply_query_policy(
    plan: PlanBuilder,
    aggregates: pl.DataFrame,
    stats: pl.DataFrame,
    systems: list[str],
    missing: str,
    sources: list[str],
) -> tuple[pl.DataFrame, pl.DataFrame]:
    scored = aggregates.filter(pl.col(_IN_LABELS)).drop(_IN_LABELS)
    per_system = pl.DataFrame({"system": systems}, schema={"system": pl.String})
    answered = scored.group_by("system").agg(n_answered=pl.len())
    run_only = (
        aggregates.filter(~pl.col(_IN_LABELS))
        .group_by("system")
        .agg(n_run_queries_without_labels=pl.len())
    )
    n_label_queries = stats.height
    counts = (
        per_system.join(answered, on="system", how="left")
        .join(run_only, on="system", how="left")
        .with_columns(
            pl.col("n_answered").fill_null(0).cast(pl.Int64),
            pl.col("n_run_queries_without_labels").fill_null(0).cast(pl.Int64),
        )
        .with_columns(
            n_label_queries_without_run=pl.lit(n_label_queries, dtype=pl.Int64)
            - pl.col("n_answered")
        )
    )
    silent = counts.filter(pl.col("n_answered") == 0)["system"].to_list()
    if silent:
        run_ids = aggregates.filter(pl.col("system").is_in(silent))["query_id"].unique().sort()
        label_ids = stats["query_id"].unique().sort()
        msg = (
            f"No query in common between the labels and the run of system(s) "
            f"{', '.join(map(repr, silent))} (from {', '.join(sources)}): run queries e.g. "
            f"{run_ids.head(3).to_list()}, label queries e.g. {label_ids.head(3).to_list()}. "
            "Check that the run and the labels belong to the same topics."
        )
        raise SchemaError(msg)

    if missing == "zero":
        grid = per_system.join(stats.select("query_id"), how="cross")
        scored = grid.join(scored, on=["system", "query_id"], how="left").with_columns(
            pl.col(name).fill_null(value)
            for name, value in plan.empty_values.items()
            if value is not None
        )
        counts = counts.with_columns(n_scored=pl.lit(n_label_queries, dtype=pl.Int64))
    else:
        counts = counts.with_columns(n_scored=pl.col("n_answered"))
    counts = counts.select(
        "system",
        "n_scored",
        "n_run_queries_without_labels",
        "n_label_queries_without_run",
        pl.lit(missing).alias("missing_policy"),
    )
    return scored, counts


@dataclass(frozen=True)
class _Pools:
    """Tier counts of a separate candidate pool, and how they replace the default ones."""

    counts: pl.LazyFrame  # query_id [, system], _pooled_<tier>...
    by_system: bool
    systems: frozenset[str]
    description: str

    def replace_counts(self, scored: pl.DataFrame, counts: pl.DataFrame) -> pl.DataFrame:
        key = ["system", "query_id"] if self.by_system else ["query_id"]
        joined = scored.join(counts, on=key, how="left")
        uses_pool = pl.col("system").is_in(list(self.systems)) if self.by_system else pl.lit(True)
        return joined.with_columns(
            pl.when(uses_pool)
            .then(pl.col(f"_pooled_{tier}").fill_null(0.0))
            .otherwise(pl.col(f"_pool_tier_{tier}"))
            .alias(f"_pool_tier_{tier}")
            for tier in TIERS
        ).drop([f"_pooled_{tier}" for tier in TIERS])


def _pool_tier_counts(
    plan: PlanBuilder,
    pool: Any,
    labels: pl.LazyFrame,
    *,
    order: OrderPolicy,
    depth: int | None = None,
) -> _Pools | None:
    if pool is None or "_pool_tier_5" not in plan.aggregations:
        return None
    by_system = isinstance(pool, Mapping) and not _is_ranx_run(pool)
    items = list(pool.items()) if by_system else [("_pool", pool)]
    frames = []
    for name, source in items:
        parsed = rio.read(source, kind="run")
        if parsed.run is None:
            msg = f"{parsed.source}: the pool has no run in it."
            raise SchemaError(msg)
        frame = parsed.run.with_columns(system=pl.lit(str(name), dtype=pl.String))
        # A pool is a set of candidates: a repeated document counts once.
        normalised = normalize_run(frame, source=parsed.source, order=order, duplicates="keep_best")
        frames.append(normalised if depth is None else normalised.filter(pl.col("pos") <= depth))
    key = ["system", "query_id"] if by_system else ["query_id"]
    # Only pooled documents with a tier count; untiered ones add nothing.
    tiered_labels = labels.join(plan.scale.tier_table(), on="grade", how="inner")
    counts = (
        pl.concat(frames, how="diagonal_relaxed")
        .select("system", "query_id", "doc_id")
        .join(tiered_labels, on=["query_id", "doc_id"], how="inner")
        .group_by(key)
        .agg(
            (pl.col("_tier") == t).fill_null(False).sum().cast(pl.Float64).alias(f"_pooled_{t}")
            for t in TIERS
        )
    )
    names = frozenset(str(name) for name, _ in items)
    description = (
        "by system: " + ", ".join(sorted(names)) if by_system else "one pool for all systems"
    )
    return _Pools(counts=counts, by_system=by_system, systems=names, description=description)


def _read_answers(answers: Any, inputs: list[_RunInput], label_input: ParsedInput) -> pl.LazyFrame:
    if answers is None:
        found = [i.parsed.answers for i in inputs if i.parsed.answers is not None]
        if label_input.answers is not None:
            found.append(label_input.answers)
        if not found:
            msg = (
                "containment@k needs acceptable answers: pass answers= (CLI --answers FILE) or "
                "use samples with an expected_answer field."
            )
            raise ParameterError(msg)
        frame = pl.concat(found).unique()
    else:
        frame = rio.read_answers(answers)
    return answer_rows(frame)


def answer_rows(answers: pl.LazyFrame) -> pl.LazyFrame:
    """Return ``query_id, answer`` as text: the answers as every measure reads them."""
    return answers.select(pl.col("query_id").cast(pl.String), pl.col("answer").cast(pl.String))


_WHITESPACE = r"\s+"


def _normalise_for_match(text: pl.Expr, mode: str) -> pl.Expr:
    if mode == "casefold":
        return text.str.to_lowercase()
    if mode == "whitespace":
        return text.str.replace_all(_WHITESPACE, " ").str.strip_chars()
    return text


def _answer_positions(plan: PlanBuilder, runs: Runs, answers: pl.LazyFrame) -> pl.LazyFrame:
    """Per (system, query): the first position whose text contains an answer, per mode."""
    run = runs.frame()
    if "text" not in run.collect_schema().names():
        msg = (
            "containment@k needs the passage text of each retrieved document; the runs "
            f"({', '.join(runs.sources)}) carry no text."
        )
        raise SchemaError(msg)
    rows = run.select("system", "query_id", "pos", "text").join(answers, on="query_id")
    return rows.group_by(list(GROUP)).agg(
        pl.col("pos")
        .filter(
            _normalise_for_match(pl.col("text"), mode).str.contains(
                _normalise_for_match(pl.col("answer"), mode), literal=True
            )
            & (pl.col("answer").str.len_bytes() > 0)
        )
        .min()
        .cast(pl.Float64)
        .alias(f"_first_answer_{mode}")
        for mode in sorted(plan.containment_modes)
    )


def _tidy(
    frame: pl.DataFrame, metrics: list[Metric], values: Mapping[str, pl.Expr]
) -> pl.DataFrame:
    pieces = []
    for metric in metrics:
        if metric.k is None:
            k_expr = pl.lit(None, dtype=pl.Int64)
        elif metric.k == PER_QUERY:
            k_expr = pl.col(QUERY_K).cast(pl.Int64)
        else:
            k_expr = pl.lit(metric.k, dtype=pl.Int64)
        pieces.append(
            frame.select(
                "system",
                "query_id",
                pl.lit(metric.name, dtype=pl.String).alias("metric"),
                pl.lit(metric.measure, dtype=pl.String).alias("measure"),
                k_expr.alias("k"),
                values[metric.name].cast(pl.Float64).alias("value"),
            )
        )
    order = {metric.name: i for i, metric in enumerate(metrics)}
    tidy = pl.concat(pieces, how="vertical")
    return (
        tidy.with_columns(_order=pl.col("metric").replace_strict(order, return_dtype=pl.Int64))
        .sort(["system", "_order", "query_id"])
        .drop("_order")
    )


def _version() -> str:
    from rankset import __version__

    return __version__
